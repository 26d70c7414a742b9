"""Rebuild: drop every index row and read all of MEMORY_ROOT again (`manage.py reindex`).

Folders skipped for their names (a shard folder that is not a bot slug) are reported in the
summary and recorded in the failure log, so the console's "What failed" shows them.

One transaction: readers wait for it rather than see half an index. Rows are streamed with
`COPY` into the bare table (links after their facts); indexes and the foreign key are recreated at the end.
"""

import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection, transaction

from memstore.errors import InvalidName
from memstore.facts import markdown
from memstore.facts.files import content_digest, read_bytes
from memstore.facts.paths import Misnamed, all_scopes, locate, memory_root, misnamed_folders
from memstore.facts.ranking import derived
from memstore.index.links import links_copy
from memstore.index.rows import RACY_NS, Placed, Stat, decode_leniently, stat_scope, unique_facts
from memstore.rules.failures import failure_record


@dataclass(frozen=True, slots=True)
class RebuildReport:
    """What a full rebuild read, and the folders it could not read because of their names."""

    files: int
    facts: int
    unreadable: int
    misnamed: list[Misnamed] = field(default_factory=list)


_COPY_COLUMNS = (
    "file_id, fact_id, day, text, line, meta, tier, weight, rank, visibility, scope_key, shard_bot,"
    " position"
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
        cursor.execute("TRUNCATE memstore_fact, memstore_link, memstore_memoryfile CASCADE")
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
    misnamed = misnamed_folders(root)
    for folder in misnamed:
        failure_record(
            root=root,
            bot=folder.path.rsplit("/", 1)[-1],
            op="reindex",
            error=InvalidName(f"{folder.path}: {folder.reason}"),
            via="tool",
        )
    return RebuildReport(
        files=len(paths), facts=total_facts, unreadable=unreadable, misnamed=misnamed
    )


def _all_paths(root: Path) -> list[str]:
    found: dict[str, Stat] = {}
    base = str(root)
    for scope in all_scopes(root):
        stat_scope(base, root, scope, found)
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
        text, error = decode_leniently(data, rel)
        facts = unique_facts(markdown.parse_text(text))
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
    links_copy(
        cursor,
        (
            (fid, item[1], [p.fact for p in item[5].values()])
            for fid, item in zip(ids, parsed, strict=True)
        ),
    )
    return count, sum(1 for item in parsed if item[4])


def _copy_rows(
    file_id: int, scope_key: str, bot: str, tier_file: str, facts: Iterable[Placed]
) -> Iterator[tuple]:
    for fact, position in facts:
        text, tier, weight, rank, visibility = derived(tier_file, fact)
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
            position,
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
