"""Sync memory files into the index: the only writer of `MemoryFile` and `Fact` rows.

`index_sync` is called before every read with the scopes that read depends on. It stats every
file of those scopes and compares the stats with the rows in one query, so when nothing changed
it costs the stats plus one query. A changed file is re-parsed and only the lines that differ
are deleted or inserted. Differences that the caller did not declare are hand edits: they are
recorded in the shard's history as `via=hand-edit`.

`index_rebuild` drops every row and reads all of MEMORY_ROOT again (`manage.py reindex`).

This module never writes a memory file; `services` does, then calls `index_sync_file`.
"""

import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction

from memstore import markdown
from memstore.errors import UnreadableFile
from memstore.files import content_digest, decode, read_bytes
from memstore.history import Change, history_append
from memstore.locks import bot_sync_lock
from memstore.models import Fact, MemoryFile
from memstore.paths import FileLocation, Scope, all_scopes, is_log_name, locate, scope_shards
from memstore.ranking import rank_of, tier_of, weight_of

# A file indexed less than this long after its last write is "racy": a later edit of the same
# size could land in the same timestamp tick (ext4 ticks are ~4 ms, NFS can be a second), so its
# stat would not change. Such files are compared by content digest until they are older.
RACY_NS = 2_000_000_000

_Stat = tuple[int, int, int]  # mtime_ns, size, inode
_SYNC_QUERY = (
    "SELECT path, mtime_ns, size, inode, recheck, digest FROM memstore_memoryfile "
    "WHERE scope_key = ANY(%s)"
)


def memory_root() -> Path:
    """The folder holding every memory file (settings.MEMORY_ROOT)."""
    return Path(settings.MEMORY_ROOT)


@dataclass(frozen=True, slots=True)
class SyncReport:
    """How much a sync looked at and how much it had to do."""

    files: int
    changed: int


def index_sync(*, scopes: Iterable[Scope]) -> SyncReport:
    """Bring the index up to date with the files of these scopes (stat first, parse what changed)."""
    root = memory_root()
    scopes = list(dict.fromkeys(scopes))
    on_disk: dict[str, _Stat] = {}
    for scope in scopes:
        _stat_scope(str(root), root, scope, on_disk)
    # One raw query: the ORM's per-row overhead would be most of the cost of a no-op sync.
    with connection.cursor() as cursor:
        cursor.execute(_SYNC_QUERY, [[str(scope) for scope in scopes]])
        rows = cursor.fetchall()
    files = len(on_disk)
    stale = []
    now = time.time_ns()
    for path, mtime_ns, size, inode, recheck, digest in rows:
        found = on_disk.pop(path, None)
        changed = found != (mtime_ns, size, inode)
        if changed or (recheck and _recheck_due(root / path, mtime_ns, digest, now)):
            stale.append(path)
    stale += on_disk  # files the index has never seen
    _sync_paths(stale)
    return SyncReport(files=files, changed=len(stale))


def _recheck_due(path: Path, mtime_ns: int, digest: str, now: int) -> bool:
    # Racy file: re-sync once it is old enough (to clear the flag) or as soon as its bytes differ.
    if now - mtime_ns >= RACY_NS:
        return True
    try:
        return content_digest(read_bytes(path)[0]) != digest
    except OSError:
        return True


def _stat_scope(base: str, root: Path, scope: Scope, found: dict[str, _Stat]) -> None:
    # Stats go through an open folder descriptor (fstatat): the kernel then resolves one name
    # instead of walking the whole path again for every file.
    for shard in scope_shards(root, scope):
        rel = shard.rel
        try:
            folder = os.open(f"{base}/{rel}", _DIR_FLAGS)
        except (FileNotFoundError, NotADirectoryError):
            continue
        try:
            try:
                st = os.stat("profile.md", dir_fd=folder)
                found[f"{rel}/profile.md"] = (st.st_mtime_ns, st.st_size, st.st_ino)
            except (FileNotFoundError, NotADirectoryError):
                pass
            try:
                logs = os.open("log", _DIR_FLAGS, dir_fd=folder)
            except (FileNotFoundError, NotADirectoryError):
                continue
            try:
                with os.scandir(logs) as entries:
                    for entry in entries:
                        if is_log_name(name := entry.name):
                            try:
                                st = entry.stat()
                            except FileNotFoundError:
                                continue
                            found[f"{rel}/log/{name}"] = (st.st_mtime_ns, st.st_size, st.st_ino)
            finally:
                os.close(logs)
        finally:
            os.close(folder)


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)


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
    by: str = "",
    via: str = "",
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
        data, st = read_bytes(memory_root() / rel)
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
        text, error = _decode_leniently(data, rel)
        lines = markdown.parse_text(text)
    facts = _unique_facts(lines)
    if row is None:
        row = MemoryFile(path=rel)
        old_rows: dict[str, tuple[int, str]] = {}
    else:
        rows = row.facts.filter(fact_id__in=declared) if own else row.facts.all()
        old_rows = {fid: (pk, line) for pk, fid, line in rows.values_list("pk", "fact_id", "line")}
    _fill_file_row(row, location, stat, digest, racy, error, len(facts))
    row.save()
    if own:
        facts = {fid: fact for fid, fact in facts.items() if fid in declared}
    new_lines = {fid: str(fact) for fid, fact in facts.items()}
    stale = [pk for fid, (pk, line) in old_rows.items() if new_lines.get(fid) != line]
    if stale:
        Fact.objects.filter(pk__in=stale).delete()
    fresh = [
        fact
        for fid, fact in facts.items()
        if fid not in old_rows or old_rows[fid][1] != new_lines[fid]
    ]
    if fresh:
        Fact.objects.bulk_create(fact_row(row, location, fact) for fact in fresh)
    if not own:
        old = {fid: line for fid, (_, line) in old_rows.items()}
        _record(location, old, new_lines, declared)


def _decode_leniently(data: bytes, rel: str) -> tuple[str, str]:
    # A file that is not UTF-8 is still indexed (with U+FFFD for bad bytes) so no fact vanishes
    # from view, but it is marked: writes to it are refused until a person fixes it.
    try:
        return decode(data, rel), ""
    except UnreadableFile as exc:
        return data.decode("utf-8", errors="replace"), exc.message


def _unique_facts(lines: list[markdown.Line]) -> dict[str, markdown.FactLine]:
    # Duplicates within a file collapse to one: the newest date wins, the first line a tie.
    facts: dict[str, markdown.FactLine] = {}
    for line in lines:
        fact = line.fact
        if fact is None:
            continue
        identity = fact.identity
        seen = facts.get(identity)
        if seen is None or fact.day > seen.day:
            facts[identity] = fact
    return facts


def _fill_file_row(
    row: MemoryFile,
    location: FileLocation,
    stat: _Stat,
    digest: str,
    racy: bool,
    error: str,
    count: int,
) -> None:
    row.scope_key = str(location.shard.scope)
    row.shard_bot = location.shard.bot
    row.tier_file = location.tier_file
    row.month = location.month
    row.mtime_ns, row.size, row.inode = stat
    row.digest = digest
    row.recheck = racy
    row.error = error
    row.fact_count = count


_TEXT_LIMIT = Fact._meta.get_field("text").max_length  # a hand-written line may be longer


def _derived(tier_file: str, fact: markdown.FactLine) -> tuple[str, str, float, float, str]:
    # (text, tier, weight, rank, visibility): what ranking and search need, precomputed.
    tier = tier_of(tier_file=tier_file, tag=fact.tag)
    meta = fact.meta
    weight = weight_of(tier=tier, meta=meta)
    visibility = meta.get("visibility", "context") if meta else "context"
    if visibility not in markdown.VISIBILITIES:
        visibility = "context"
    rank = rank_of(day=fact.day, weight=weight)
    return fact.text[:_TEXT_LIMIT], tier, weight, rank, visibility


def fact_row(file_row: MemoryFile, location: FileLocation, fact: markdown.FactLine) -> Fact:
    """The index row for one fact line of a file."""
    text, tier, weight, rank, visibility = _derived(location.tier_file, fact)
    return Fact(
        file=file_row,
        fact_id=fact.identity,
        day=fact.day,
        text=text,
        line=str(fact),
        meta=fact.meta,
        tier=tier,
        weight=weight,
        rank=rank,
        visibility=visibility,
        scope_key=str(location.shard.scope),
        shard_bot=location.shard.bot,
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


@dataclass(frozen=True, slots=True)
class RebuildReport:
    """What a full rebuild read."""

    files: int
    facts: int
    unreadable: int


_COPY_COLUMNS = (
    "file_id, fact_id, day, text, line, meta, tier, weight, rank, visibility, scope_key, shard_bot"
)
_FILE_COLUMNS = (
    "path, scope_key, shard_bot, tier_file, month, mtime_ns, size, inode, digest, recheck, "
    "error, fact_count, synced_at"
)


def index_rebuild(
    *,
    progress: Callable[[int, int], None] | None = None,
    batch: int = 500,
    on_phase: Callable[[str], None] | None = None,
) -> RebuildReport:
    """Drop every index row and read all of MEMORY_ROOT again, in one transaction.

    Readers wait for it (the tables are locked until it commits) rather than see half an index.
    `progress(files_done, files_total)` is called after each batch; `on_phase(name)` when the
    work moves on ("reading", "indexing")."""
    root = memory_root()
    paths = _all_paths(root)
    total_facts = unreadable = 0
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
        # Pending deferred foreign-key checks of a caller's earlier writes in this transaction
        # would block TRUNCATE: run them now. CASCADE empties tables that point at index rows
        # (they are derived from them too; their ids are about to change).
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("TRUNCATE memstore_fact, memstore_memoryfile CASCADE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        # Loading into a bare table, then indexing and checking the foreign key once at the end,
        # is several times faster than maintaining GIN and b-tree indexes and queueing a
        # foreign-key check row by row.
        restore = _drop_foreign_keys(cursor)
        restore = _drop_secondary_indexes(cursor) + restore  # indexes first, then the check
        if on_phase:
            on_phase("reading")
        for start in range(0, len(paths), batch):
            facts, bad = _rebuild_chunk(cursor, root, paths[start : start + batch])
            total_facts += facts
            unreadable += bad
            if progress:
                progress(min(start + batch, len(paths)), len(paths))
        if on_phase:
            on_phase("indexing")
        for sql in restore:
            cursor.execute(sql)
        cursor.execute("ANALYZE memstore_fact")
        cursor.execute("ANALYZE memstore_memoryfile")
    return RebuildReport(files=len(paths), facts=total_facts, unreadable=unreadable)


def _all_paths(root: Path) -> list[str]:
    found: dict[str, _Stat] = {}
    base = str(root)
    for scope in all_scopes(root):
        _stat_scope(base, root, scope, found)
    return sorted(found)


def _drop_foreign_keys(cursor) -> list[str]:
    cursor.execute(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = 'memstore_fact'::regclass AND contype = 'f'"
    )
    found = cursor.fetchall()
    for name, _ in found:
        cursor.execute(f'ALTER TABLE memstore_fact DROP CONSTRAINT "{name}"')
    return [f'ALTER TABLE memstore_fact ADD CONSTRAINT "{name}" {sql}' for name, sql in found]


def _drop_secondary_indexes(cursor) -> list[str]:
    cursor.execute(
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() "
        "AND tablename = 'memstore_fact' AND indexname NOT IN ("
        "  SELECT conname FROM pg_constraint WHERE conrelid = 'memstore_fact'::regclass)"
    )
    found = cursor.fetchall()
    for name, _ in found:
        cursor.execute(f'DROP INDEX "{name}"')
    return [sql for _, sql in found]


def _rebuild_chunk(cursor, root: Path, paths: list[str]) -> tuple[int, int]:
    parsed = []
    now = time.time_ns()
    for rel in paths:
        location = locate(rel)
        try:
            data, st = read_bytes(root / rel)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            continue
        text, error = _decode_leniently(data, rel)
        facts = _unique_facts(markdown.parse_text(text))
        parsed.append((rel, location, st, content_digest(data), error, facts))
    ids = _insert_files(cursor, parsed, now)
    count = 0
    with cursor.cursor.copy(f"COPY memstore_fact ({_COPY_COLUMNS}) FROM STDIN") as copy:
        for file_id, (_, location, _, _, _, facts) in zip(ids, parsed, strict=True):
            scope_key, bot, tier_file = (
                str(location.shard.scope),
                location.shard.bot,
                location.tier_file,
            )
            for row in _copy_rows(file_id, scope_key, bot, tier_file, facts.values()):
                copy.write_row(row)
                count += 1
    return count, sum(1 for item in parsed if item[4])


def _copy_rows(
    file_id: int, scope_key: str, bot: str, tier_file: str, facts: Iterable[markdown.FactLine]
) -> Iterator[tuple]:
    for fact in facts:
        text, tier, weight, rank, visibility = _derived(tier_file, fact)
        yield (
            file_id,
            fact.identity,
            fact.day,
            text,
            str(fact),
            json.dumps(fact.meta) if fact.meta else "{}",
            tier,
            weight,
            rank,
            visibility,
            scope_key,
            bot,
        )


def _insert_files(cursor, parsed: list[tuple], now: int) -> list[int]:
    if not parsed:
        return []
    rows = []
    for rel, location, st, digest, error, facts in parsed:
        rows.append(
            (
                rel,
                str(location.shard.scope),
                location.shard.bot,
                location.tier_file,
                location.month,
                st.st_mtime_ns,
                st.st_size,
                st.st_ino,
                digest,
                now - st.st_mtime_ns < RACY_NS,
                error,
                len(facts),
            )
        )
    placeholders = ", ".join(
        ["(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, now())"] * len(rows)
    )
    cursor.execute(
        f"INSERT INTO memstore_memoryfile ({_FILE_COLUMNS}) VALUES {placeholders} RETURNING id",
        [value for row in rows for value in row],
    )
    return [row[0] for row in cursor.fetchall()]
