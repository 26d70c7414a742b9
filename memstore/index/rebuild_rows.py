"""The rebuild's rows, made from batches of memory files: in this process, or in worker
processes so the reading and parsing run on other cores than Postgres's `COPY`.

Owns: `batch_read` (a batch of files -> their `MemoryFile` columns and the `COPY` text of
their fact and link rows, all but the file row id, which only the database gives) and
`batches_read` (every batch, in order, from `workers` processes, the first few read here
while they start; 0 reads them all here), and
`worker_main`, the loop such a process runs.

The `COPY` text is what psycopg's `write_row` sends for the same values (a date as ISO, a
float as its shortest repr, a string with backslash, tab, line breaks escaped), so a rebuild
gives the very rows it gave when the parent made them. A worker is a fresh interpreter
(`python -c`, not a fork, which would share the parent's open database connection, nor
multiprocessing's spawn, which imports the caller's main script again) that sets Django up but
never connects; batches go to it and come back as pickles on its stdin and stdout, at most two
per worker at a time, so memory stays bounded whatever the tree's size. A worker whose parent
dies sees its input end and exits.

Does not: talk to the database (`memstore.index.rebuild` inserts and copies).
"""

import contextlib
import json
import os
import pickle
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from subprocess import PIPE

from memstore.facts import markdown
from memstore.facts.files import content_digest, read_bytes
from memstore.facts.paths import locate
from memstore.facts.ranking import derived
from memstore.index.rows import RACY_NS, decode_leniently, unique_facts

# Below this many bytes of memory files (about 100,000 facts) the workers' start (a new
# interpreter with Django each: 1.2 s of CPU measured on the 2-core box) costs about what they
# save.
WORKERS_MIN_BYTES = 8 << 20
# Batches the rebuilding process reads itself while its workers start: about the parsing that
# a worker's start costs (1.2 s of CPU, some 60,000 facts at 100 files of 100 facts a batch).
OWN_BATCHES = 4


@dataclass(frozen=True, slots=True)
class Batch:
    """A batch of files read: per file its `MemoryFile` columns (path .. fact count, as
    `_FILE_COLUMNS` lists them without `synced_at`) and the `COPY` lines of its facts and
    links, each line without its leading file id column."""

    files: list[tuple]
    facts: list[bytes]
    links: list[bytes]
    fact_count: int
    unreadable: int


def batch_read(root: str, paths: list[str]) -> Batch:
    """Read, parse and derive the rows of these files (relative paths under `root`); a file
    gone since it was listed is left out."""
    base = Path(root)
    now = time.time_ns()
    files, facts_out, links_out = [], [], []
    count = unreadable = 0
    days: dict[date, str] = {}  # a file's facts share a few days
    for rel in paths:
        location = locate(rel)
        try:
            data, st = read_bytes(base / rel)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            continue
        text, error = decode_leniently(data, rel)
        facts = unique_facts(markdown.parse_text(text))
        scope_key, bot = str(location.shard.scope), location.shard.bot
        files.append(
            (
                rel,
                scope_key,
                bot,
                location.tier_file,
                location.month,
                st.st_mtime_ns,
                st.st_size,
                st.st_ino,
                content_digest(data),
                now - st.st_mtime_ns < RACY_NS,
                error,
                len(facts),
            )
        )
        tail = f"\t{_field(scope_key)}\t{_field(bot)}\t"
        rows, links = [], []
        for fact, position in facts.values():
            text, tier, weight, rank, visibility = derived(location.tier_file, fact)
            meta = json.dumps(fact.meta) if fact.meta else "{}"
            if (day := days.get(fact.day)) is None:
                day = days[fact.day] = fact.day.isoformat()
            rows.append(
                f"{fact.identity}\t{day}\t{_field(text)}\t{_field(str(fact))}"
                f"\t{_field(meta)}\t{_field(tier)}\t{weight!r}\t{rank!r}\t{_field(visibility)}"
                f"{tail}{position}\n"
            )
            if fact.meta and markdown.LINK_KEY in fact.meta:
                for kind, target in markdown.links_of(fact):
                    links.append(f"{fact.identity}\t{_field(kind)}\t{_field(target)}{tail[:-1]}\n")
        facts_out.append("".join(rows).encode())
        links_out.append("".join(links).encode())
        count += len(rows)
        unreadable += bool(error)
    return Batch(files, facts_out, links_out, count, unreadable)


def with_file_ids(ids: list[int], lines: list[bytes]) -> bytes:
    """One `COPY` payload: every line of file i prefixed with its row id `ids[i]`."""
    out = []
    for file_id, block in zip(ids, lines, strict=True):
        if block:
            prefix = b"%d\t" % file_id
            # Rows end in a raw newline (a newline inside a value is escaped), so the prefix
            # goes after every newline but the last.
            out.append(prefix + block[:-1].replace(b"\n", b"\n" + prefix) + b"\n")
    return b"".join(out)


def batches_read(root: Path, paths: list[str], *, batch: int, workers: int) -> Iterator[Batch]:
    """Every batch of `batch` paths, read in order; on `workers` processes (0: here)."""
    chunks = [paths[start : start + batch] for start in range(0, len(paths), batch)]
    if workers <= 0 or len(chunks) < 2 or "DJANGO_SETTINGS_MODULE" not in os.environ:
        for chunk in chunks:
            yield batch_read(str(root), chunk)
        return
    # Each path of the parent's import path, so the child imports the same code.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    procs = [
        subprocess.Popen([sys.executable, "-c", _WORKER], stdin=PIPE, stdout=PIPE, env=env)
        for _ in range(workers)
    ]
    # While the workers start, this process reads the first batches itself (it is set up
    # already, and Postgres would otherwise wait for the workers' first batch).
    split = min(OWN_BATCHES, len(chunks) // 2)  # the workers read at least half
    own, chunks = chunks[:split], chunks[split:]
    try:
        ahead = 2 * workers  # batches asked for and not yet taken, at most
        for i in range(min(ahead, len(chunks))):
            _send(procs[i % workers], (str(root), chunks[i]))
        for chunk in own:
            yield batch_read(str(root), chunk)
        for i in range(len(chunks)):
            proc = procs[i % workers]
            result = _receive(proc)
            if i + ahead < len(chunks):
                _send(proc, (str(root), chunks[i + ahead]))  # the same worker: still 2 each
            yield result
    finally:
        for proc in procs:
            with contextlib.suppress(OSError):
                proc.stdin.close()  # end of input: the worker exits
        for proc in procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            proc.stdout.close()


# A worker: Django set up (the index package imports its models) before anything of memstore.
_WORKER = "import django; django.setup(); from memstore.index.rebuild_rows import worker_main; worker_main()"


def worker_main() -> None:
    """A worker process's loop: (root, paths) in, a Batch out, on its stdin and stdout, until
    its input ends."""
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # stdout carries the frames only
    while (request := _frame_read(source)) is not None:
        try:
            reply: object = batch_read(*request)
        except Exception:
            reply = _Failed(traceback.format_exc())
        _frame_write(sink, reply)


@dataclass(frozen=True, slots=True)
class _Failed:
    """A batch a worker could not read: the error as it was raised there."""

    error: str


def _send(proc: subprocess.Popen, request: tuple[str, list[str]]) -> None:
    _frame_write(proc.stdin, request)


def _receive(proc: subprocess.Popen) -> Batch:
    reply = _frame_read(proc.stdout)
    if reply is None:
        raise RuntimeError(f"a rebuild worker process exited (status {proc.wait()})")
    if isinstance(reply, _Failed):
        raise RuntimeError(f"a rebuild worker process failed:\n{reply.error}")
    return reply


def _frame_write(stream, value: object) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(data).to_bytes(8, "big") + data)
    stream.flush()


def _frame_read(stream) -> object | None:
    head = stream.read(8)
    if len(head) < 8:
        return None
    return pickle.loads(stream.read(int.from_bytes(head, "big")))


def workers_for(total_bytes: int) -> int:
    """How many worker processes read a tree of this size: none for a small tree, else one
    per core beyond the first (the other core runs Postgres's COPY), at least one."""
    if total_bytes < WORKERS_MIN_BYTES:
        return 0
    return max(1, (os.cpu_count() or 1) - 1)


def _field(value: str | None) -> str:
    """A value as `COPY` text: \\N for NULL, the escapes psycopg writes."""
    if value is None:
        return "\\N"
    # Every character COPY escapes is a backslash or not printable: the common value is
    # settled by two scans in C, without a lookup per character.
    if (value.isprintable() and "\\" not in value) or _SPECIAL.isdisjoint(value):
        return value
    return value.translate(_ESCAPES)


_ESCAPES = str.maketrans(
    {"\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r"}
)
_SPECIAL = frozenset(chr(c) for c in _ESCAPES)
