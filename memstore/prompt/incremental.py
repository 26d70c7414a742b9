"""A scope's prompt block kept up to date by what changed, not by re-sorting the whole scope.

Owns: `ScopeState`, one scope's index rows as the prompt needs them (per row: identity, file,
date, rank, weight, line, tier, visibility class and usage nudge; per file: its digest and its
place in the database's order of paths), the merge rule of `section._BLOCK_SQL` redone in
Python (the newest copy of each identity wins; a tie goes to the first shard, then file, by
name), and `state_block`, which makes a `BlockInput` from it. After a write, `ScopeState.update`
reads in one statement only the files whose digest changed since (their rows' ids and line
numbers, and the rows it has not seen in full) and redoes the merge for the identities they
touch: a forget or an edit drops the old line, a save adds its new one.

What it cannot be sure of reloads the whole state (`state_load`): a file it never saw (a new
month's log, a rebuild, which gives every file a new id), a row older than the newest it knows
that it never saw (a writer that committed out of id order), a version whose newest file row
went backwards, or a change of more than `UPDATE_MAX_ROWS` rows (a large hand edit, where one
load is cheaper). The usage nudge of rows already held is the one read when they were loaded
(the block cache is keyed by the day, so it moves at the latest the next day).

Does not: sync, cache anything by itself (`memstore.prompt.cache` keeps the states), load a
block the first time (`memstore.prompt.indexed` reads it from the index) or withhold anything.
"""

import bisect
import heapq
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from itertools import chain

from django.db import connection
from django.db.models import F

from memstore.facts.paths import Scope
from memstore.facts.ranking import usage_bonus_sql
from memstore.facts.records import StoredFact, stored_from_row
from memstore.facts.validity import expired_sql
from memstore.models import Fact
from memstore.prompt.compose import BlockInput, BlockKind, Budget, SliceName
from memstore.rules.withheld import fact_flag

BEST_KEPT = 96  # keys kept per best list: a forget of a shown fact rarely needs a re-sort
UPDATE_MAX_ROWS = 1000  # more changed rows than this: load the whole state again
# Larger scopes are read from the index after each change: past about 20,000 facts that read
# (`memstore.prompt.indexed`) costs less than bringing a state up to date, and loading the
# state whole would take most of a request's time budget.
STATE_MAX_FACTS = 20_000
# Facts loaded past each budget's count, so a block still fills when a few are withheld.
WITHHELD_SPARE = 8

_CLASSES = ("expired", "private", "hidden", "searchable")
_BONUS = f"{usage_bonus_sql('u.')}::float8"
_CLASS = f"CASE WHEN {expired_sql('f')} THEN 'expired' ELSE f.visibility END"

# Every file of the scope with its place in the database's order (the collation the SQL load
# sorts by), then every fact row: one statement, so files and rows come from one snapshot.
_LOAD_SQL = f"""/* prompt state: load */
    WITH files AS (
        SELECT id, digest, dense_rank() OVER (ORDER BY path) AS by_path,
               row_number() OVER (ORDER BY shard_bot, path) AS by_shard, path, mtime_ns, size
        FROM memstore_memoryfile WHERE scope_key = %s
    )
    SELECT 'file', id, digest, by_path, by_shard, NULL::date, NULL::float8, NULL::float8,
           NULL::bool, NULL::text, NULL::float8, path, mtime_ns, size
    FROM files
    UNION ALL
    SELECT 'fact', f.id, f.fact_id, f.file_id, f.position, f.day, f.rank, f.weight,
           f.tier = 'profile', {_CLASS}, {_BONUS}, NULL, NULL::bigint, NULL::bigint
    FROM memstore_fact f
    JOIN files ON files.id = f.file_id
    LEFT JOIN memstore_factusage u ON u.scope_key = %s AND u.fact_id = f.fact_id
"""

# What changed since a state's files, as one JSON list with an item per file whose digest
# differs: [known id or null (a new file), id or null (a known file that is gone), digest,
# path, its rows' ids, their line numbers, those rows newer than the newest the state holds,
# in full, and the file's mtime_ns and size]. One pass over each changed file's rows gives all three (the ids and line
# numbers pair up in whatever order the rows come; sorting them cost a third of the server's
# time), and the usage nudge is looked up for the new rows only: half the planning of a
# statement with a subquery per part.
_DELTA_SQL = f"""/* prompt state: delta */
    WITH d AS (
        SELECT k.id AS known, m.id, m.digest, m.path, m.mtime_ns, m.size
        FROM (SELECT id, digest, path, mtime_ns, size FROM memstore_memoryfile
              WHERE scope_key = %s) m
        FULL JOIN unnest(%s::bigint[], %s::text[]) AS k(id, digest) ON k.id = m.id
        WHERE k.digest IS DISTINCT FROM m.digest
    )
    SELECT coalesce(json_agg(json_build_array(
               d.known, d.id, d.digest, d.path, r.ids, r.positions, r.fresh, d.mtime_ns, d.size
           )), '[]')
    FROM d LEFT JOIN LATERAL (
        SELECT coalesce(array_agg(f.id), '{{}}') AS ids,
               coalesce(array_agg(f.position), '{{}}') AS positions,
               coalesce(json_agg(json_build_array(
                   f.id, f.fact_id, f.position, f.day, f.rank, f.weight, f.tier = 'profile',
                   {_CLASS},
                   coalesce((SELECT {_BONUS} FROM memstore_factusage u
                             WHERE u.scope_key = %s AND u.fact_id = f.fact_id), 0.0),
                   f.text, f.tier, f.visibility, f.meta, f.shard_bot))
                   FILTER (WHERE f.id > %s), '[]') AS fresh
        FROM memstore_fact f WHERE f.file_id = d.id
    ) r ON true
"""


@dataclass(slots=True)
class _File:
    digest: str
    by_path: int  # its place among the scope's paths (the rank order's `path DESC`)
    by_shard: int  # its place by (shard bot, path): the merge's tie-break
    path: str  # relative to the memory root
    stat: tuple[int, int]  # (mtime_ns, size) as the index holds it
    rows: set[int] = field(default_factory=set)


# One index row: (fact_id, file_id, day ordinal, rank, weight, position, profile, class, bonus)
Row = tuple[str, int, int, float, float, int, bool, str, float]


@dataclass(slots=True)
class ScopeState:
    """One scope's rows, merged across shards, and the winners sorted into their parts."""

    scope: Scope
    today: date
    files: dict[int, _File]
    rows: dict[int, Row]
    top: int  # the newest row id held
    top_file: int  # the newest file id held
    version: tuple | None = None  # the scope's version when last brought up to date
    generation: int = 0  # how many times it was brought up to date (see `cache.deltas_folded`)
    copies: dict[str, list[int]] = field(default_factory=dict)  # identity -> row ids
    # (profile, class) -> identity -> the winner's sort key (best is largest; its row id last)
    parts: dict[tuple[bool, str], dict[str, tuple]] = field(default_factory=dict)
    # (profile, shown classes) -> the best keys of those parts, ascending (`best_keys`)
    best: dict[tuple[bool, tuple[str, ...]], list[tuple]] = field(default_factory=dict)
    stored: dict[int, StoredFact] = field(default_factory=dict)  # rows loaded in full
    flags: dict[int, bool] = field(default_factory=dict)  # the secret detector's verdicts

    def _key(self, row_id: int, row: Row) -> tuple:
        file = self.files[row[1]]
        weight = row[4] if self.scope.kind == "server" else 0.0
        # SQL: [weight DESC,] rank DESC, day DESC, path DESC, position DESC; unique per row.
        return (weight, row[3] + row[8], row[2], file.by_path, row[5], row_id)

    def _merge(self, identity: str) -> None:
        """Put the identity's newest copy (first shard and file by name on a tie) in its part,
        and keep the best lists (`_best`) true."""
        was = None
        for name, part in self.parts.items():
            if (key := part.pop(identity, None)) is not None:
                was = (name, key)
        ids = self.copies.get(identity)
        now = None
        if ids:
            rows, files = self.rows, self.files
            best = min(ids, key=lambda i: (-rows[i][2], files[rows[i][1]].by_shard))
            row = rows[best]
            now = ((row[6], row[7]), self._key(best, row))
            self.parts.setdefault(now[0], {})[identity] = now[1]
        else:
            self.copies.pop(identity, None)
        if self.best and was != now:
            self._best_moved(was, now)

    def _best_moved(self, was: tuple | None, now: tuple | None) -> None:
        # Each list holds the best keys of its candidates, ascending: taking one out leaves the
        # best of the rest; a key goes in if it beats the list's worst or the list held them all.
        for (profile, shown), keys in self.best.items():
            if was is not None and was[0][0] == profile and was[0][1] in shown:
                i = bisect.bisect_left(keys, was[1])
                if i < len(keys) and keys[i] == was[1]:
                    del keys[i]
            if now is not None and now[0][0] == profile and now[0][1] in shown:
                held = sum(len(self.parts.get((profile, cls), ())) for cls in shown) - 1
                if len(keys) >= held or (keys and now[1] > keys[0]):
                    bisect.insort(keys, now[1])
                    if len(keys) > BEST_KEPT:
                        del keys[0]

    def best_keys(self, profile: bool, shown: tuple[str, ...], n: int) -> list[tuple]:
        """The `n` best keys among these parts, best first."""
        keys = self.best.get((profile, shown))
        held = sum(len(self.parts.get((profile, cls), ())) for cls in shown)
        if keys is None or (len(keys) < n and len(keys) < held):
            every = chain.from_iterable(self.parts.get((profile, c), {}).values() for c in shown)
            keys = sorted(heapq.nlargest(max(BEST_KEPT, n), every))
            self.best[(profile, shown)] = keys
        return keys[: -n - 1 : -1] if n else []

    def _add(self, row_id: int, row: Row) -> None:
        self.rows[row_id] = row
        self.files[row[1]].rows.add(row_id)
        self.copies.setdefault(row[0], []).append(row_id)

    def _drop(self, row_id: int) -> str:
        row = self.rows.pop(row_id)
        self.stored.pop(row_id, None)
        self.flags.pop(row_id, None)
        ids = self.copies[row[0]]
        ids.remove(row_id)
        return row[0]

    def delta_query(self) -> tuple[str, list]:
        """The statement (one JSON value) that reads what changed since this state, and its
        parameters: `update` runs it, or a caller folds it into its own statement."""
        known = list(self.files)
        digests = [self.files[i].digest for i in known]
        scope = str(self.scope)
        return _DELTA_SQL, [scope, known, digests, self.today.isoformat(), scope, self.top]

    def disk_changed(
        self,
        root: str,
        files: Iterable[_File] | None = None,
        stats: Mapping[str, tuple[int, int, int]] | None = None,
    ) -> bool:
        """Whether a file the state holds (or of `files`, a copy of them) has another stat on
        disk than the index had for it (the next prompt will find its digest changed): a few
        stats, no statement. `stats`: (mtime_ns, size, inode) by path, taken already (the
        sync's folded check), used for the files it holds."""
        for file in self.files.values() if files is None else files:
            if stats is not None and (taken := stats.get(file.path)) is not None:
                if taken[:2] != file.stat:
                    return True
                continue
            try:
                stat = os.stat(os.path.join(root, file.path))
            except OSError:
                return True
            if (stat.st_mtime_ns, stat.st_size) != file.stat:
                return True
        return False

    def update(self, top_file: int | None, items: list | None = None) -> bool:
        """Bring the state up to the index as it is now (`items`: what `delta_query` selected,
        when the caller read it); False when it cannot be sure (the caller loads it whole
        again)."""
        self.generation += 1
        if top_file is not None and top_file < self.top_file:
            return False  # a version that moved backwards
        if items is None:
            sql, params = self.delta_query()
            with connection.cursor() as cursor:
                cursor.execute(sql, params)
                (items,) = cursor.fetchone()
        if any(was is None for was, *_ in items):
            return False  # a file never seen (a new log, or a rebuild)
        if sum(len(item[6]) for item in items) > UPDATE_MAX_ROWS:
            return False
        touched: set[str] = set()
        new = {row[0] for item in items for row in item[6]}
        if not self._files_moved(items, new, touched):
            return False
        self._rows_added(items, touched)
        for identity in touched:
            self._merge(identity)
        if top_file is not None:
            self.top_file = top_file
        return True

    def _files_moved(self, items: list, new: set[int], touched: set[str]) -> bool:
        # Files gone and rows dropped or moved within their file; False when a row was
        # committed out of id order (never seen in full: the caller loads the state again).
        for file_id, now_id, digest, _path, ids, positions, _, mtime_ns, size in items:
            if now_id is None:  # gone
                for row_id in list(self.files[file_id].rows):
                    touched.add(self._drop(row_id))
                del self.files[file_id]
                continue
            file = self.files[file_id]
            now = dict(zip(ids, positions, strict=True))
            for row_id in file.rows - now.keys():
                touched.add(self._drop(row_id))
            file.rows &= now.keys()
            for row_id, position in now.items():
                row = self.rows.get(row_id)
                if row is None:
                    if row_id not in new:
                        return False  # committed out of id order: never seen in full
                    continue
                if row[5] != position:  # a line above it was added or removed
                    self.rows[row_id] = (*row[:5], position, *row[6:])  # type: ignore[assignment]
                    if (stored := self.stored.get(row_id)) is not None:
                        self.stored[row_id] = replace(stored, position=position)
                    touched.add(row[0])
            file.digest, file.stat = digest, (mtime_ns, size)
        return True

    def _rows_added(self, items: list, touched: set[str]) -> None:
        # The new rows, each kept in full as `stored_from_row` makes it: a new fact is often
        # shown at once.
        for file_id, _, _, path, _, _, fresh, *_ in items:
            for item in fresh:
                row_id, fact_id, position, day, rank, weight, profile, cls, bonus = item[:9]
                text, tier, visibility, meta, shard_bot = item[9:]
                when = date.fromisoformat(day)
                cls = cls if cls in _CLASSES else "context"
                row = (fact_id, file_id, when.toordinal(), rank, weight, position, profile, cls)
                self._add(row_id, (*row, bonus))
                self.stored[row_id] = StoredFact(
                    fact_id=fact_id,
                    day=when,
                    text=text,
                    tier=tier,
                    scope=str(self.scope),
                    shard_bot=shard_bot,
                    file=path,
                    rank=rank,
                    visibility=visibility,
                    meta=meta,
                    position=position,
                )
                touched.add(fact_id)
                self.top = max(self.top, row_id)


def state_load(scope: Scope, today: date) -> ScopeState:
    """The whole state of a scope from the index as it is now (one statement)."""
    with connection.cursor() as cursor:
        cursor.execute(_LOAD_SQL, [str(scope), today.isoformat(), str(scope)])
        rows = cursor.fetchall()
    files = {
        r[1]: _File(digest=r[2], by_path=r[3], by_shard=r[4], path=r[11], stat=(r[12], r[13]))
        for r in rows
        if r[0] == "file"
    }
    state = ScopeState(
        scope=scope, today=today, files=files, rows={}, top=0, top_file=max(files, default=0)
    )
    for _, row_id, fact_id, file_id, position, day, rank, weight, profile, cls, bonus, *_ in rows:
        if fact_id is None or day is None:
            continue  # a file's row
        cls = cls if cls in _CLASSES else "context"
        state._add(
            row_id, (fact_id, file_id, day.toordinal(), rank, weight, position, profile, cls, bonus)
        )
        state.top = max(state.top, row_id)
    for identity in state.copies:
        state._merge(identity)
    return state


def state_block(
    state: ScopeState, budgets: dict[SliceName, Budget] | object, private: bool
) -> BlockInput:
    """The block `section._load` would give for this scope now: the best profile and recent
    facts within the budgets (plus a spare few), and how many each part holds."""
    parts = state.parts
    shown = ("context", "private") if private else ("context",)

    def size(profile: bool, *classes: str) -> int:
        return sum(len(parts.get((profile, cls), ())) for cls in classes)

    on_disk = {
        "profile": size(True, *shown),
        "recent": size(False, *shown),
        "searchable": size(True, "searchable") + size(False, "searchable"),
    }
    best: list[tuple] = []
    for profile, name in ((True, "profile"), (False, "recent")):
        best += state.best_keys(profile, shown, budgets[name].facts + WITHHELD_SPARE)  # type: ignore[index]
    missing = [key[-1] for key in best if key[-1] not in state.stored]
    if missing:
        for row in Fact.objects.filter(pk__in=missing).annotate(file_path=F("file__path")):
            state.stored[row.pk] = stored_from_row(row)
    facts, flagged = [], set()
    for key in best:
        stored = state.stored.get(row_id := key[-1])
        if stored is None:
            continue  # deleted since the state was read: the next prompt's version differs
        bonus = state.rows[row_id][8]
        facts.append(replace(stored, rank=stored.rank + bonus) if bonus else stored)
        if row_id not in state.flags:
            state.flags[row_id] = bool(fact_flag(stored))
        if state.flags[row_id]:
            flagged.add(stored.fact_id)
    kind: BlockKind = state.scope.kind  # type: ignore[assignment]
    return BlockInput(
        kind=kind,
        name=state.scope.name,
        facts=facts,
        on_disk=on_disk,
        private=private,
        flagged=frozenset(flagged),
    )
