"""Rebuild: drop every index row and read all of MEMORY_ROOT again (`manage.py reindex`).

Folders skipped for their names (a shard folder that is not a bot slug) are reported in the
summary and recorded in the failure log, so the console's "What failed" shows them.

One transaction: readers wait for it rather than see half an index, and a rebuild stopped
midway leaves the index as it was. Rows are streamed with `COPY` into the bare table (links
after their facts); indexes and the foreign key are recreated at the end. On a large tree the
files are read and parsed in worker processes (`rebuild_rows`), so parsing and Postgres's
`COPY` run on two cores at once. The trigram index on facts' text (`LATE_INDEXES`, the
partial-word search's) is built after the commit, concurrently: it costs more than all the
others together, and partial words are still found without it, by a scan. The prompt's scope
counts (`memstore_scopecount`, kept by triggers row by row) are filled in one pass at the end.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.db import DatabaseError, connection, transaction

from memstore.errors import InvalidName
from memstore.facts.paths import Misnamed, all_scopes, memory_root, misnamed_folders
from memstore.index.rebuild_rows import Batch, batches_read, with_file_ids, workers_for
from memstore.index.rows import Stat, stat_scope
from memstore.rules.failures import failure_record


@dataclass(frozen=True, slots=True)
class RebuildReport:
    """What a full rebuild read, and the folders it could not read because of their names."""

    files: int
    facts: int
    unreadable: int
    misnamed: list[Misnamed] = field(default_factory=list)


logger = logging.getLogger(__name__)

# Built after the rebuild's commit (`_build_late`), not inside it: pg_trgm's index on text.
LATE_INDEXES = frozenset({"fact_text_trgm"})
READ_BATCH = 100  # files per batch read by a worker process (about 10,000 facts)

_COPY_COLUMNS = (
    "file_id, fact_id, day, text, line, meta, tier, weight, rank, visibility, scope_key, shard_bot,"
    " position"
)
_LINK_COLUMNS = "file_id, source, kind, target, scope_key, shard_bot"
# FREEZE: the tables were truncated in this (sub)transaction, so their rows go in frozen and
# all-visible: the first reads after the commit (the trigram index's build among them) need
# not set every page's hint bits, which with data checksums writes each page again to the WAL.
_FROM = "FROM STDIN WITH (FREEZE)"
_FILE_COLUMNS = (
    "path, scope_key, shard_bot, tier_file, month, mtime_ns, size, inode, digest, recheck, "
    "error, fact_count, synced_at"
)


def index_rebuild(
    *,
    progress: Callable[[int, int], None] | None = None,
    batch: int = 500,
    on_phase: Callable[[str], None] | None = None,
    workers: int | None = None,
) -> RebuildReport:
    """Drop every index row and read all of MEMORY_ROOT again, in one transaction.

    Readers wait for it (the tables are locked until it commits) rather than see half an index;
    the trigram index is built after the commit, while they go on.
    `progress(files_done, files_total)` is called after each batch; `on_phase(name)` when the
    work moves on ("reading", "indexing"). The files are read and parsed on `workers` other
    processes (default: none for a tree under 8 MB, else one per core beyond the first) while
    this one feeds their rows to Postgres."""
    root = memory_root()
    found = _all_files(root)
    paths = sorted(found)
    if workers is None:
        workers = workers_for(sum(size for _, size, _ in found.values()))
    total_facts = unreadable = 0
    with transaction.atomic(), connection.cursor() as cursor:
        restore, late = _emptied(cursor)
        if on_phase:
            on_phase("reading")
        # With workers, smaller batches: Postgres starts on the first sooner, and the last
        # one's COPY (which no parsing overlaps) is short.
        step = min(batch, READ_BATCH) if workers else batch
        done = 0
        for read in batches_read(root, paths, batch=step, workers=workers):
            _copy_batch(cursor, read)
            total_facts += read.fact_count
            unreadable += read.unreadable
            done = min(done + step, len(paths))
            if progress:
                progress(done, len(paths))
        if on_phase:
            on_phase("indexing")
        for sql in restore:
            cursor.execute(sql)
        cursor.execute("SET LOCAL memstore.counts_off = 'off'")
        cursor.execute("SELECT memstore_scope_counts_fill()")
        cursor.execute("ANALYZE memstore_fact")
        cursor.execute("ANALYZE memstore_memoryfile")
    if late:
        if on_phase:
            on_phase("indexing partial words")
        _build_late(late)
    misnamed = _misnamed_recorded(root)
    return RebuildReport(
        files=len(paths), facts=total_facts, unreadable=unreadable, misnamed=misnamed
    )


def _emptied(cursor) -> tuple[list[str], list[str]]:
    # The index tables emptied and bared for loading: the statements that restore their indexes
    # and foreign keys at the end, and the definitions of the indexes built after the commit.
    cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
    # Pending deferred foreign-key checks of a caller's earlier writes in this transaction
    # would block TRUNCATE: run them now. CASCADE empties tables that point at index rows
    # (they are derived from them too; their ids are about to change).
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    cursor.execute(
        "TRUNCATE memstore_fact, memstore_link, memstore_memoryfile, memstore_scopecount CASCADE"
    )
    # The scope counts' triggers would recount row by row: one pass fills them at the end.
    cursor.execute("SET LOCAL memstore.counts_off = 'on'")
    cursor.execute("SET CONSTRAINTS ALL DEFERRED")
    # Loading into a bare table, then indexing and checking the foreign key once at the end,
    # is several times faster than maintaining GIN and b-tree indexes and queueing a
    # foreign-key check row by row.
    restore = _drop_foreign_keys(cursor)
    indexes, late = _drop_secondary_indexes(cursor)
    return indexes + restore, late  # indexes first, then the check


def _misnamed_recorded(root: Path) -> list[Misnamed]:
    # The folders skipped for their names, each recorded in the failure log.
    misnamed = misnamed_folders(root)
    for folder in misnamed:
        failure_record(
            root=root,
            bot=folder.path.rsplit("/", 1)[-1],
            op="reindex",
            error=InvalidName(f"{folder.path}: {folder.reason}"),
            via="tool",
        )
    return misnamed


def _copy_batch(cursor, read: Batch) -> None:
    ids = _insert_files(cursor, read.files)
    facts = with_file_ids(ids, read.facts)
    if facts:
        with cursor.cursor.copy(f"COPY memstore_fact ({_COPY_COLUMNS}) {_FROM}") as copy:
            copy.write(facts)
    links = with_file_ids(ids, read.links)
    if links:
        with cursor.cursor.copy(f"COPY memstore_link ({_LINK_COLUMNS}) {_FROM}") as copy:
            copy.write(links)


def _all_files(root: Path) -> dict[str, Stat]:
    found: dict[str, Stat] = {}
    base = str(root)
    for scope in all_scopes(root):
        stat_scope(base, root, scope, found)
    return found


def _drop_foreign_keys(cursor) -> list[str]:
    cursor.execute(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = 'memstore_fact'::regclass AND contype = 'f'"
    )
    found = cursor.fetchall()
    for name, _ in found:
        cursor.execute(f'ALTER TABLE memstore_fact DROP CONSTRAINT "{name}"')
    return [f'ALTER TABLE memstore_fact ADD CONSTRAINT "{name}" {sql}' for name, sql in found]


def _drop_secondary_indexes(cursor) -> tuple[list[str], list[str]]:
    """Drop the facts' secondary indexes; their definitions to recreate before the commit, and
    those of the `LATE_INDEXES` to build after it."""
    cursor.execute(
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() "
        "AND tablename = 'memstore_fact' AND indexname NOT IN ("
        "  SELECT conname FROM pg_constraint WHERE conrelid = 'memstore_fact'::regclass)"
    )
    found = cursor.fetchall()
    for name, _ in found:
        cursor.execute(f'DROP INDEX "{name}"')
    now = [sql for name, sql in found if name not in LATE_INDEXES]
    late = [sql for name, sql in found if name in LATE_INDEXES]
    return now, late


def _build_late(definitions: list[str]) -> None:
    """Build the late indexes: concurrently when no transaction is open (reads and writes go on
    meanwhile; partial words are found by a scan until it is done), else in the caller's."""
    concurrently = not connection.in_atomic_block
    with connection.cursor() as cursor:
        for sql in definitions:
            head, _, rest = sql.partition("INDEX ")
            name = rest.split(" ", 1)[0]
            if concurrently:
                sql = f"{head}INDEX CONCURRENTLY {rest}"
            try:
                cursor.execute(sql)
            except DatabaseError:
                if not concurrently:
                    raise
                # A failed concurrent build leaves an invalid index behind: drop it, so the
                # next rebuild or migration makes it again; the rebuild itself has committed.
                logger.warning(
                    "rebuild: building %s failed; partial words scan until the next reindex",
                    name,
                    exc_info=True,
                )
                cursor.execute(f'DROP INDEX IF EXISTS "{name}"')


def _insert_files(cursor, files: list[tuple]) -> list[int]:
    if not files:
        return []
    placeholders = ", ".join(
        ["(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, now())"] * len(files)
    )
    cursor.execute(
        f"INSERT INTO memstore_memoryfile ({_FILE_COLUMNS}) VALUES {placeholders} RETURNING id",
        [value for row in files for value in row],
    )
    return [row[0] for row in cursor.fetchall()]
