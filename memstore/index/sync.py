"""Sync before read: bring the index up to date with the files a request depends on.

`index_sync` stats every file of the given scopes and compares the stats with the rows in one
query, so when nothing changed it costs the stats plus one query. A changed file is re-parsed
under its writing bot's lock and only the lines that differ are deleted or inserted.
Differences the caller did not declare are hand edits: they are recorded in the shard's history
as `via=hand-edit`. `index_sync_file` is what a service calls after writing a file.

Within `sync_bounded` (a read with a time budget) changed files are parsed inline only up to
`SYNC_INLINE_BYTES` in all (about 1 ms per KB on the 2-core box): the rest, and every changed
file of a bot whose files are already being synced here, go to this process's background thread
(`behind`) and the read answers from the index as it stands (`SyncReport.deferred`). Vectors
are never made here: the backfill makes them after the words are indexed.

A reader that runs a statement over the same scopes anyway can carry the stat check in it
(`sync_folded`): the files are statted first (`sync_check_start`), the reader adds the file
rows (`SYNC_ROWS_SQL`, one JSON value) to its first statement and hands them back
(`sync_fold_rows`), which raises `SyncNeeded` when anything is behind: the caller then drops
what it read and syncs as usual. One round trip fewer when nothing changed (the usual case).
"""

import json
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.db import connection, transaction

from memstore.facts import markdown
from memstore.facts.files import content_digest
from memstore.facts.history import Change, history_append
from memstore.facts.locks import bot_sync_lock
from memstore.facts.paths import FileLocation, Scope, locate, memory_root
from memstore.facts.symlinks import file_read
from memstore.index.behind import behind_sync
from memstore.index.events import events_kick
from memstore.index.links import links_replace
from memstore.index.rows import (
    RACY_NS,
    Placed,
    Stat,
    decode_leniently,
    fact_row,
    fill_file_row,
    unique_facts,
)
from memstore.index.stale import files_behind, rows_behind, scopes_stat, stale_split
from memstore.metrics import sync_observed
from memstore.models import Fact, MemoryFile

# The same rows as one JSON value, for a reader to fold into its own statement.
SYNC_ROWS_SQL = (
    "SELECT coalesce(json_agg(json_build_array(path, mtime_ns, size, inode, recheck, digest)),"
    " '[]') FROM memstore_memoryfile WHERE scope_key = ANY(%s)"
)


_SKIPPED: ContextVar[bool] = ContextVar("memstore_sync_skipped", default=False)
_BOUNDED: ContextVar[tuple[int, Callable[[], object] | None] | None] = ContextVar(
    "memstore_sync_bounded", default=None
)
SYNC_INLINE_BYTES = 128 * 1024  # changed bytes a bounded sync parses inline (~130 ms here)


@contextmanager
def sync_skipped() -> Iterator[None]:
    """Within the block `index_sync` does nothing: a reader out of time answers from the index
    as it stands (see `memstore.index.budget`). Writes still re-sync their own files."""
    token = _SKIPPED.set(True)
    try:
        yield
    finally:
        _SKIPPED.reset(token)


def sync_is_skipped() -> bool:
    """Whether this is a budgeted read (inside `sync_skipped`): work that may take long (a large
    snapshot) should be left to the background."""
    return _SKIPPED.get()


@contextmanager
def sync_bounded(
    inline_bytes: int = SYNC_INLINE_BYTES, *, then: Callable[[], object] | None = None
) -> Iterator[None]:
    """Within the block `index_sync` parses at most `inline_bytes` of changed files itself and
    hands larger changes to the background thread (see the module doc), which calls `then()`
    once it has synced them (the reader asks for their vectors). Entered inside a transaction
    (a caller's, a test's) it bounds nothing: the thread could not see its uncommitted rows."""
    token = _BOUNDED.set(None if connection.in_atomic_block else (inline_bytes, then))
    try:
        yield
    finally:
        _BOUNDED.reset(token)


@dataclass(frozen=True, slots=True)
class SyncReport:
    """How much a sync looked at, how much it did, and how many files it left to the
    background (a bounded sync: the index does not hold their changes yet)."""

    files: int
    changed: int
    deferred: int = 0


def index_sync(*, scopes: Iterable[Scope]) -> SyncReport:
    """Bring the index up to date with the files of these scopes (stat first, parse what changed)."""
    if _SKIPPED.get():
        return SyncReport(files=0, changed=0)
    started = time.perf_counter()
    report = _index_sync(list(dict.fromkeys(scopes)))
    sync_observed(time.perf_counter() - started, report.changed, report.deferred)
    return report


def _index_sync(scopes: list[Scope]) -> SyncReport:
    files, stale, sizes, on_disk = files_behind(scopes)
    bounded = _BOUNDED.get()
    later: list[str] = []
    if bounded is not None and stale:
        inline_bytes, then = bounded
        sizes.update((rel, stat[1]) for rel, stat in on_disk.items())
        stale, later = stale_split(stale, sizes, inline_bytes)
        if later:
            behind_sync(later, _sync_paths, then=then)
    _sync_paths(stale)
    return SyncReport(files=files, changed=len(stale), deferred=len(later))


class SyncNeeded(Exception):
    """A folded stat check found files the index is behind on: sync them, then read again."""


@dataclass(slots=True)
class SyncCheck:
    """The stat half of a sync's check, waiting for the file rows a reader's statement brings
    (`sync_fold_rows`); `done` once they came and nothing was behind."""

    keys: frozenset[str]
    on_disk: dict[str, Stat]
    started: float
    done: bool = False


_FOLDED: ContextVar[SyncCheck | None] = ContextVar("memstore_sync_folded", default=None)


def sync_check_start(*, scopes: Iterable[Scope]) -> SyncCheck:
    """Stat every file of these scopes (no statement yet); see `sync_folded`."""
    started = time.perf_counter()
    scopes = list(dict.fromkeys(scopes))
    return SyncCheck(
        keys=frozenset(str(scope) for scope in scopes), on_disk=scopes_stat(scopes), started=started
    )


@contextmanager
def sync_folded(check: SyncCheck) -> Iterator[None]:
    """Within the block a reader over exactly the check's scopes may fold the file rows into
    its statement (`sync_fold_wanted`, `sync_fold_rows`); whether it did is `check.done`."""
    token = _FOLDED.set(check)
    try:
        yield
    finally:
        _FOLDED.reset(token)


def sync_fold_wanted(keys: Iterable[str]) -> bool:
    """Whether a reader over these scope keys should add `SYNC_ROWS_SQL` to its statement."""
    check = _FOLDED.get()
    return check is not None and not check.done and check.keys == frozenset(keys)


def sync_fold_stats() -> dict[str, Stat] | None:
    """The stats of the folded check in progress (`sync_folded`), by path relative to the
    memory root, for a reader that needs the same files' stats (no second stat each); None
    outside one."""
    check = _FOLDED.get()
    return None if check is None or check.done else check.on_disk


def sync_fold_rows(value: list | str) -> None:
    """The rows `SYNC_ROWS_SQL` selected, compared with the stats: nothing behind marks the
    check done; anything behind (changed, new, gone, a racy file due) raises SyncNeeded."""
    check = _FOLDED.get()
    assert check is not None, "sync_fold_rows outside sync_folded"
    rows = json.loads(value) if isinstance(value, str) else value
    stale, _ = rows_behind(memory_root(), rows, dict(check.on_disk))
    if stale:
        raise SyncNeeded(stale)
    check.done = True
    sync_observed(time.perf_counter() - check.started, 0, 0)


def _sync_paths(rels: list[str]) -> None:
    # Grouped by writing bot, in a fixed order, each group under that bot's lock (see locks.py).
    by_bot: dict[str, list[FileLocation]] = {}
    for rel in rels:
        if (location := locate(rel)) is not None:
            by_bot.setdefault(location.shard.bot, []).append(location)
    for bot in sorted(by_bot):
        with _index_transaction(bot):
            for location in by_bot[bot]:
                _sync_file(location, set())


@dataclass(frozen=True, slots=True)
class Written:
    """What a service just wrote: the digests of the file before and after its change."""

    before: str  # "" for a file it created
    after: str
    lines: list[markdown.Line] | None = None  # the lines it wrote, parsed (saves a re-parse)


def index_sync_file(
    rel: str,
    *,
    declared: Iterable[str] = (),
    written: Written | None = None,
) -> None:
    """Re-read one file into the index. Changes to facts in `declared` are the caller's own;
    any other difference is recorded in history as a hand edit. With `written`, a writer says
    which version it changed into which: if the index held exactly that version and the file
    is still what it wrote, only the declared facts' rows are touched."""
    location = locate(rel)
    if location is None:
        return
    with _index_transaction(location.shard.bot):
        _sync_file(location, set(declared), written)


@contextmanager
def _index_transaction(bot: str) -> Iterator[None]:
    outer = connection.in_atomic_block
    with transaction.atomic():
        bot_sync_lock(bot, async_commit=not outer)
        yield


def _sync_file(location: FileLocation, declared: set[str], written: Written | None = None) -> None:
    # Caller holds the shard bot's lock inside a transaction.
    rel = location.rel
    row = MemoryFile.objects.filter(path=rel).first()
    try:
        data, st = file_read(str(memory_root()), rel)  # a link on the way: not there
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        if row is not None:
            old = dict(row.facts.values_list("fact_id", "line"))
            row.delete()
            _record(location, old, {}, declared)
        return
    stat = (st.st_mtime_ns, st.st_size, st.st_ino)
    racy = time.time_ns() - st.st_mtime_ns < RACY_NS
    if row is not None and (row.mtime_ns, row.size, row.inode) == stat and not row.recheck:
        return
    digest = content_digest(data)
    if row is not None and row.digest == digest:
        # Same bytes (a touch, a copy back, or a racy file that did not change): no parse.
        MemoryFile.objects.filter(pk=row.pk).update(
            mtime_ns=stat[0], size=stat[1], inode=stat[2], recheck=racy
        )
        return
    # A writer's own change to a version the index already held: nothing else can differ.
    own = (
        written is not None
        and written.after == digest
        and written.before == (row.digest if row is not None else "")
    )
    if own and written.lines is not None:
        error, lines = "", written.lines
    else:
        text, error = decode_leniently(data, rel)
        lines = markdown.parse_text(text)
    facts = unique_facts(lines)
    if row is None:
        row = MemoryFile(path=rel)
        old_rows: dict[str, tuple[int, str, int]] = {}
    else:
        rows = row.facts.filter(fact_id__in=declared) if own else row.facts.all()
        old_rows = {
            fid: (pk, line, position)
            for pk, fid, line, position in rows.values_list("pk", "fact_id", "line", "position")
        }
    fill_file_row(row, location, stat, digest, racy, error, len(facts))
    row.save()
    if own:
        facts = {fid: placed for fid, placed in facts.items() if fid in declared}
    _apply_rows(row, location, facts, old_rows)
    if not own:
        old = {fid: line for fid, (_, line, _) in old_rows.items()}
        _record(location, old, {fid: str(p.fact) for fid, p in facts.items()}, declared)


def _apply_rows(
    row: MemoryFile,
    location: FileLocation,
    facts: dict[str, Placed],
    old_rows: dict[str, tuple[int, str, int]],
) -> None:
    # Only lines that differ are deleted and inserted; a kept line that moved gets its position.
    new_lines = {fid: str(placed.fact) for fid, placed in facts.items()}
    stale = [pk for fid, (pk, line, _) in old_rows.items() if new_lines.get(fid) != line]
    if stale:
        Fact.objects.filter(pk__in=stale).delete()
    fresh = [
        placed
        for fid, placed in facts.items()
        if fid not in old_rows or old_rows[fid][1] != new_lines[fid]
    ]
    if fresh:
        Fact.objects.bulk_create(fact_row(row, location, placed) for placed in fresh)
    gone = [fid for fid, (_, line, _) in old_rows.items() if new_lines.get(fid) != line]
    links_replace(row, location, gone, [placed.fact for placed in fresh])
    moved = [
        (old_rows[fid][0], placed.position)
        for fid, placed in facts.items()
        if fid in old_rows
        and old_rows[fid][1] == new_lines[fid]
        and old_rows[fid][2] != placed.position
    ]
    if moved:
        _positions_set(moved)


def _positions_set(moved: list[tuple[int, int]]) -> None:
    """Give these rows (pk, position) their new positions in one statement joined on the pks:
    a line inserted at the top of a 100,000-line file moves every row below it, and Django's
    `bulk_update` (one CASE branch per row, tried in turn for each row) grows with the square."""
    pks, positions = zip(*moved, strict=True)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Fact._meta.db_table} AS f SET position = m.position"
            " FROM unnest(%s::bigint[], %s::integer[]) AS m(id, position) WHERE f.id = m.id",
            [list(pks), list(positions)],
        )


def _record(
    location: FileLocation, old: dict[str, str], new: dict[str, str], declared: set[str]
) -> None:
    # What changed that the caller did not declare was done by hand (or by a tool we do not know).
    file = location.rel
    changes = []
    for fid, line in old.items():
        if fid not in new and fid not in declared:
            changes.append(Change(op="remove", file=file, fact_id=fid, line=line, via="hand-edit"))
    for fid, line in new.items():
        if fid in declared:
            continue
        if fid not in old:
            changes.append(Change(op="add", file=file, fact_id=fid, line=line, via="hand-edit"))
        elif old[fid] != line:
            changes.append(
                Change(
                    op="edit",
                    file=file,
                    fact_id=fid,
                    line=line,
                    old_line=old[fid],
                    old_fact_id=fid,
                    via="hand-edit",
                )
            )
    if changes:
        history_append(memory_root(), location.shard, changes)
        events_kick()
