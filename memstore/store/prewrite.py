"""What a write reads in the statement that takes its bot's lock, and what it checks then.

Owns: `prewrite_reading`, the select list a write passes to `bot_lock(reading=...)`, so that one
round trip takes the lock and reads: the scope's file rows as the index holds them, every stored
copy in the scope of the facts the write is about (the duplicate check, and which files hold a
fact), and the controls of the people the content rules ask about
(`memstore.rules.content.content_people`); and `Prewrite`, that row parsed, whose `behind` says
which of the scope's files the index is behind, by a stat of each taken once the lock is held,
and which rows of the writer's own files only need a new stat (the write's index statement
gives it to them, as a sync would: `memstore.index.written`).

Postgres reads those rows at the snapshot of the locking statement, taken before the lock was
granted; a stat taken afterwards is compared with them, so a file that another writer of the bot
changed while this one waited (or a hand edit) is behind, never mistaken for in step.

Does not: sync anything (a write that finds files behind syncs them or reads every file), or
decide what to write.
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import NamedTuple

from memstore.facts.files import content_digest, read_bytes
from memstore.facts.paths import Scope, Shard
from memstore.facts.records import STORED_COLUMNS, StoredFact, stored_from_values
from memstore.index.rows import Stat, stat_scope
from memstore.index.sync import rows_behind
from memstore.rules.controls import Controls, controls_parse, controls_sql

_FILES_SQL = (
    "(SELECT coalesce(json_agg(json_build_array(id, path, mtime_ns, size, inode, recheck,"
    " digest)), '[]') FROM memstore_memoryfile WHERE scope_key = %s)"
)
_COPIES_SQL = (
    f"(SELECT coalesce(json_agg(json_build_array({STORED_COLUMNS})), '[]')"
    " FROM memstore_fact f JOIN memstore_memoryfile m ON m.id = f.file_id"
    " WHERE f.scope_key = %s AND f.fact_id = ANY(%s))"
)


class FileRow(NamedTuple):
    """A memory file as the index last synced it."""

    id: int
    path: str
    mtime_ns: int
    size: int
    inode: int
    recheck: bool
    digest: str


class Restat(NamedTuple):
    """A file row whose file holds the very bytes it was made from under another stat (touched,
    copied back, or no longer just written): the row can take the new stat without a sync."""

    id: int
    digest: str
    stat: Stat


@dataclass(frozen=True, slots=True)
class Behind:
    """What a stat of the files says of the rows: the files the index is behind (gone, new to
    it, or with other bytes), and the rows of the writer's own files to restat."""

    files: list[str]
    restat: list[Restat]


@dataclass(frozen=True, slots=True)
class Prewrite:
    """What the index held when the write took its lock: the scope's file rows by path, the
    stored copies of the write's facts in the scope, and the people's controls (None when
    they were not asked for)."""

    scope: Scope
    files: dict[str, FileRow]
    copies: list[StoredFact]
    controls: dict[str, Controls] | None

    def behind(self, root: Path, shard: Shard, *, scope_wide: bool = False) -> Behind:
        """Which files of `shard` (with `scope_wide`, of the whole scope) the index is behind,
        by a stat of each: a file whose stat is not its row's (or that was just written) is
        read, and if it holds the bytes the row was made from it is in step, and listed to
        restat when it is one of `shard`'s (the writer holds that shard's lock)."""
        on_disk: dict[str, Stat] = {}
        stat_scope(str(root), root, self.scope, on_disk)
        rows = [tuple(row[1:]) for row in self.files.values()]
        own = shard.rel + "/"
        if not scope_wide:
            on_disk = {path: stat for path, stat in on_disk.items() if path.startswith(own)}
            rows = [row for row in rows if row[0].startswith(own)]
        stats = dict(on_disk)
        files, restat = [], []
        for path in rows_behind(root, rows, on_disk)[0]:
            row = self.files.get(path)
            if row is None or path not in stats or not _holds(root / path, row.digest):
                files.append(path)
            elif path.startswith(own):
                restat.append(Restat(row.id, row.digest, stats[path]))
        return Behind(files=files, restat=restat)


def _holds(path: Path, digest: str) -> bool:
    # Whether the file's bytes are those the index row was made from.
    try:
        return bool(digest) and content_digest(read_bytes(path)[0]) == digest
    except OSError:
        return False


def prewrite_reading(
    *, scope: Scope, fact_ids: Iterable[str], people: list[str] | None = None
) -> tuple[str, list]:
    """The select list (and its parameters) that reads a write's `Prewrite` for `bot_lock`;
    with `people`, their controls and everyone's excluded topics too."""
    select = f"{_FILES_SQL}, {_COPIES_SQL}"
    params: list = [str(scope), str(scope), sorted(set(fact_ids))]
    if people is not None:
        sql, more = controls_sql(people=people, with_topics=True)
        select += f", ({sql})"
        params += more
    return select, params


def prewrite_parse(row: tuple, *, scope: Scope, people: list[str] | None = None) -> Prewrite:
    """The `Prewrite` of the row `bot_lock` got for `prewrite_reading` (same `people`)."""
    files, copies, *controls = (_json(value) for value in row)
    return Prewrite(
        scope=scope,
        files={values[1]: FileRow(*values) for values in files},
        copies=[_copy(values) for values in copies],
        controls=controls_parse(controls[0], people=people) if people is not None else None,
    )


def _json(value: object) -> object:
    return json.loads(value) if isinstance(value, str) else value


def _copy(values: list) -> StoredFact:
    # As `stored_from_values` reads a row of STORED_COLUMNS; JSON gives the date as text.
    values = list(values)
    values[1] = date.fromisoformat(values[1])
    return stored_from_values(tuple(values))
