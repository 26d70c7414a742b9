"""The rebuild's rows, made from batches of memory files: in this process, or in worker
processes so the reading and parsing run on other cores than Postgres's `COPY`.

Owns: `batch_read` (a batch of files -> their `MemoryFile` columns and the `COPY` text of
their fact and link rows, all but the file row id, which only the database gives) and
`batches_read` (every batch, in order, from `workers` processes; 0 reads them here).

The `COPY` text is what psycopg's `write_row` sends for the same values (a date as ISO, a
float as its shortest repr, a string with backslash, tab, line breaks escaped), so a rebuild
gives the very rows it gave when the parent made them. A worker is a fresh interpreter
("spawn": a fork would share the parent's open database connection) that sets Django up but
never connects; at most `2 × workers` batches wait in memory, whatever the tree's size.

Does not: talk to the database (`memstore.index.rebuild` inserts and copies).
"""

import json
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from memstore.facts import markdown
from memstore.facts.files import content_digest, read_bytes
from memstore.facts.paths import locate
from memstore.facts.ranking import derived
from memstore.index.rows import RACY_NS, decode_leniently, unique_facts

# Below this many files the workers' start (a new interpreter each, about a second) costs
# more than they save.
WORKERS_MIN_FILES = 400


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
            rows.append(
                f"{fact.identity}\t{fact.day.isoformat()}\t{_field(text)}\t{_field(str(fact))}"
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
    if workers <= 0 or len(chunks) < 2:
        for chunk in chunks:
            yield batch_read(str(root), chunk)
        return
    import django

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=django.setup) as pool:
        waiting: deque = deque()
        pending = iter(chunks)
        for chunk in pending:
            waiting.append(pool.submit(batch_read, str(root), chunk))
            if len(waiting) >= 2 * workers:
                break
        while waiting:
            result = waiting.popleft().result()
            if (chunk := next(pending, None)) is not None:
                waiting.append(pool.submit(batch_read, str(root), chunk))
            yield result


def workers_for(files: int) -> int:
    """How many worker processes read a tree of this many files: none for a small tree, else
    one per core beyond the first (the other core runs Postgres's COPY), at least one."""
    if files < WORKERS_MIN_FILES:
        return 0
    return max(1, (os.cpu_count() or 1) - 1)


def _field(value: str | None) -> str:
    """A value as `COPY` text: \\N for NULL, the escapes psycopg writes."""
    if value is None:
        return "\\N"
    if _SPECIAL.isdisjoint(value):
        return value
    return value.translate(_ESCAPES)


_ESCAPES = str.maketrans(
    {"\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r"}
)
_SPECIAL = frozenset(chr(c) for c in _ESCAPES)
