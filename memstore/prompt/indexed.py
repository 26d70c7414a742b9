"""A prompt block read straight from the index: each file's best rows, never a sort of the
whole scope.

Owns: `block_read`, which gives the `BlockInput` of one scope (the best profile and recent
facts within the budgets plus a spare few, and how many facts each part holds) from one
statement that reads
- each of the scope's files' first rows in the block's order, from the index on (file, rank,
  day, line) (`fact_file_rank`; the workspace's few files are ordered by weight first, in
  memory): within a file that order is the block's, since the path is the same; of those,
  only the scope's best (and the first row past them, "cut") go on to the checks below;
- every copy of the facts the usage nudge lifts (a recent recall: their rank rises by at most
  `USAGE_MAX_BONUS`, so they may come from deep in a file), and the scope's expired facts
  (through the partial index on facts with an `until` day);
- for each row read, whether it is its identity's newest copy in the scope (the merge: newest
  date, then first shard, then first file by name), its usage nudge and its visibility class;
- the scope's counts of merged facts per part and visibility (`memstore_scopecount`, kept by
  the writes' triggers), from which the expired ones read above are taken out.

A row not read has a rank no higher than the last read of its file (or the "cut" row) and no
nudge upwards, so once the best facts chosen beat those rows the choice is the one a sort of
the whole scope makes; when they do not (a file whose first rows are hidden, copies or withheld), the
statement runs again reading four times as many rows per file.

The `seed` shape (`memstore.prompt.shape`) reads the same way in its own order: each file's
newest rows (personal memory) or weightiest then newest (workspace memory). No index serves a
file's rows by date, so those reads sort each file's rows (a month's log, the profile): the
`seed` shape's cost grows with the size of a scope's files, the `blocks` shape's does not.

Does not: cache (see `memstore.prompt.cache`), withhold or compose; sync.
"""

import json
from collections.abc import Mapping

from django.db import connection
from django.utils import timezone

from memstore.facts.paths import Scope
from memstore.facts.ranking import usage_bonus_sql
from memstore.facts.records import StoredFact
from memstore.facts.validity import expired_sql, may_expire_sql
from memstore.prompt.compose import BlockInput, BlockKind, Budget, SliceName
from memstore.prompt.incremental import WITHHELD_SPARE
from memstore.prompt.shape import PERSONAL
from memstore.rules.withheld import fact_flag

READ_MARGIN = 8  # rows read per file past what the block needs (copies, hidden lines)

_BONUS = usage_bonus_sql("u.")
_EXPIRED = expired_sql("r").replace("%s", "%(today)s")
_COLUMNS = (
    "f.id, f.fact_id, f.day, f.rank, f.weight, f.position, f.visibility, f.meta, f.shard_bot,"
    " f.text, f.tier"
)
# A block's order: "rank" (blocks), "weight" (the workspace's blocks), and the `seed` shape's
# "recency" (personal memory: newest date first) and "weight_recency" (workspace memory).
_ORDER = {
    "rank": "f.rank DESC, f.day DESC, f.position DESC",
    "weight": "f.weight DESC, f.rank DESC, f.day DESC, f.position DESC",
    "recency": "f.day DESC, f.rank DESC, f.position DESC",
    "weight_recency": "f.weight DESC, f.day DESC, f.rank DESC, f.position DESC",
}
# The same across the scope's files (a file's place by path stands for its path).
_CUT = {
    "rank": "t.rank DESC, t.day DESC, files.by_path DESC, t.position DESC",
    "weight": "t.weight DESC, t.rank DESC, t.day DESC, files.by_path DESC, t.position DESC",
    "recency": "t.day DESC, t.rank DESC, files.by_path DESC, t.position DESC",
    "weight_recency": "t.weight DESC, t.day DESC, t.rank DESC, files.by_path DESC, t.position DESC",
}
# A row is its identity's winner unless another copy in the scope is newer, or as new and in
# an earlier shard, or the same shard and an earlier file (`section` merges the same way).
_READ_SQL = (
    """/* prompt: block from the index */
    WITH files AS MATERIALIZED (
        SELECT id, path, tier_file = 'profile' AS profile,
               dense_rank() OVER (ORDER BY path) AS by_path
        FROM memstore_memoryfile WHERE scope_key = %(scope)s
    ),
    top AS (
        SELECT t.*, files.id AS file,
               row_number() OVER (PARTITION BY files.profile ORDER BY {cut}) AS n
        FROM files CROSS JOIN LATERAL (
            SELECT *, count(*) OVER () AS in_file FROM (
                SELECT {columns} FROM memstore_fact f
                WHERE f.file_id = files.id
                ORDER BY {order} LIMIT CASE WHEN files.profile THEN %(kp)s ELSE %(kr)s END
            ) l
        ) t
    ),
    found AS (
        SELECT CASE WHEN f.n > CASE WHEN files.profile THEN %(kp)s ELSE %(kr)s END
                    THEN 'cut' ELSE 'top' END AS src,
               {columns}, files.path, files.profile, files.by_path, files.id AS file, f.in_file
        FROM top f JOIN files ON files.id = f.file
        WHERE f.n <= CASE WHEN files.profile THEN %(kp)s ELSE %(kr)s END + 1
        UNION ALL
        SELECT 'lifted', {columns}, files.path, files.profile, files.by_path, files.id, 0
        FROM memstore_factusage u
        JOIN memstore_fact f ON f.scope_key = u.scope_key AND f.fact_id = u.fact_id
        JOIN files ON files.id = f.file_id
        WHERE u.scope_key = %(scope)s AND u.recalled > 0 AND {bonus} > 0
        UNION ALL
        SELECT 'until', {columns}, files.path, files.profile, files.by_path, files.id, 0
        FROM memstore_fact f JOIN files ON files.id = f.file_id
        WHERE f.scope_key = %(scope)s AND {may_expire} AND {expired_f}
    )
    SELECT r.src, r.id, r.day, r.rank, r.weight, r.position, r.by_path, r.profile, r.file,
           r.visibility, {expired} AS expired, ({bonus})::float8 AS bonus,
           NOT EXISTS (
               SELECT 1 FROM memstore_fact g
               WHERE g.fact_id = r.fact_id AND g.scope_key = %(scope)s AND g.id <> r.id
                 AND (g.day > r.day OR (g.day = r.day AND (g.shard_bot < r.shard_bot
                      OR (g.shard_bot = r.shard_bot
                          AND (SELECT path FROM memstore_memoryfile gm WHERE gm.id = g.file_id)
                              < r.path))))
           ) AS wins, NULL::json AS counts, r.fact_id, r.text, r.tier, r.meta, r.shard_bot, r.path,
           r.in_file
    FROM found r LEFT JOIN memstore_factusage u ON u.scope_key = %(scope)s AND u.fact_id = r.fact_id
    UNION ALL
    SELECT 'counts', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
           (SELECT coalesce(json_agg(json_build_array(profile, visibility, n)), '[]')
            FROM memstore_scopecount WHERE scope_key = %(scope)s),
           NULL, NULL, NULL, NULL, NULL, NULL, NULL
""".replace("{columns}", _COLUMNS)
    .replace("{bonus}", _BONUS)
    .replace("{expired}", _EXPIRED)
)
_READ_SQL = _READ_SQL.replace("{expired_f}", expired_sql("f").replace("%s", "%(today)s")).replace(
    "{may_expire}", may_expire_sql("f")
)
_SQL = {
    mode: _READ_SQL.replace("{order}", order).replace("{cut}", _CUT[mode])
    for mode, order in _ORDER.items()
}


def _mode(scope: Scope, seed: bool) -> str:
    if seed:
        return "recency" if scope.kind in PERSONAL else "weight_recency"
    return "weight" if scope.kind == "server" else "rank"


def _read(
    scope: Scope, kp: int, kr: int, mode: str
) -> tuple[list[tuple], dict[tuple[bool, str], int]]:
    today = timezone.localdate().isoformat()
    params = {"scope": str(scope), "today": today, "kp": kp, "kr": kr}
    with connection.cursor() as cursor:
        cursor.execute(_SQL[mode], params)
        rows = cursor.fetchall()
    counts: dict[tuple[bool, str], int] = {}
    for row in rows:
        if row[0] == "counts":
            found = json.loads(row[13]) if isinstance(row[13], str) else row[13]
            counts = {(profile, visibility): n for profile, visibility, n in found}
    return [row for row in rows if row[0] != "counts"], counts


def _key(row: tuple, mode: str, nudged: bool = True) -> tuple:
    # The block's order, best largest: [weight,] rank with its nudge, date, path, line (the
    # `seed` shape's: [weight,] date, rank with its nudge, path, line; `shape.seed_order`).
    _, _, day, rank, weight, position, by_path, *_ = row
    rank += row[11] if nudged else 0.0
    weighed = weight if mode in ("weight", "weight_recency") else 0.0
    if mode in ("recency", "weight_recency"):
        return (weighed, day, rank, by_path, position)
    return (weighed, rank, day, by_path, position)


def _chosen(
    rows: list[tuple],
    wanted: Mapping[bool, int],
    limits: Mapping[bool, int],
    shown: tuple[str, ...],
    mode: str,
) -> list[tuple] | None:
    """The best `wanted[profile]` winners of each part, or None when a file read to its
    limit (`limits[profile]` rows) may hold a better one: read again, deeper."""
    # What was not read ranks below the first row past the scope's cut ("cut"), and below the
    # last row of each file read to its limit whose rows were all kept.
    bounds: dict[bool, list[tuple]] = {True: [], False: []}
    last: dict[int, tuple] = {}  # file -> the last of its rows kept (in the file's order)
    kept: dict[int, int] = {}
    for row in rows:
        if row[0] == "cut":
            bounds[row[7]].append(_key(row, mode, nudged=False))
        elif row[0] == "top" and row[20] >= limits[row[7]]:
            key = _key(row, mode, nudged=False)
            last[row[8]] = min(last.get(row[8], key), key)
            kept[row[8]] = kept.get(row[8], 0) + 1
    for row in rows:
        if row[8] in last and kept[row[8]] == row[20]:
            bounds[row[7]].append(last.pop(row[8]))
    winners = {
        row[1]: row
        for row in rows
        if row[0] != "cut" and row[12] and not row[10] and _class(row[9]) in shown
    }
    chosen = []
    for profile, n in wanted.items():
        part = sorted(
            (row for row in winners.values() if row[7] == profile),
            key=lambda row: _key(row, mode),
            reverse=True,
        )
        if bounds[profile] and (len(part) < n or _key(part[n - 1], mode) <= max(bounds[profile])):
            return None
        chosen += part[:n]
    return chosen


def _class(visibility: str) -> str:
    return visibility if visibility in ("private", "hidden", "searchable") else "context"


def block_read(
    scope: Scope, budgets: Mapping[SliceName, Budget], private: bool = False, seed: bool = False
) -> BlockInput:
    """The block of `scope` as the index holds it now (see the module doc). Outside direct
    rooms a private fact is as good as hidden: not shown, not counted; an expired fact (its
    `until` day passed) is kept in its file but never shown or counted. `seed`: each part's
    best in the `seed` shape's order (`shape.seed_order`), which picks from both parts."""
    wanted = {
        True: budgets["profile"].facts + WITHHELD_SPARE,
        False: budgets["recent"].facts + WITHHELD_SPARE,
    }
    shown = ("context", "private") if private else ("context",)
    mode = _mode(scope, seed)
    depth = 1
    while True:
        limits = {profile: depth * (n + READ_MARGIN) for profile, n in wanted.items()}
        rows, counts = _read(scope, limits[True], limits[False], mode)
        chosen = _chosen(rows, wanted, limits, shown, mode)
        if chosen is not None:
            break
        depth *= 4
    return _block(scope, private, rows, counts, chosen)


def _block(
    scope: Scope,
    private: bool,
    rows: list[tuple],
    counts: dict[tuple[bool, str], int],
    chosen: list[tuple],
) -> BlockInput:
    # The counts hold every merged fact by its visibility: the expired ones are not on disk.
    for row in {row[1]: row for row in rows if row[12] and row[10]}.values():
        part = (row[7], row[9])
        counts[part] = counts.get(part, 0) - 1
    shown = ("context", "private") if private else ("context",)

    def held(profile: bool | None, *visibilities: str) -> int:
        return sum(
            n
            for (p, v), n in counts.items()
            if (profile is None or p == profile) and v in visibilities
        )

    on_disk = {
        "profile": held(True, *shown),
        "recent": held(False, *shown),
        "searchable": held(None, "searchable"),
    }
    # The rank the block is ordered by includes the usage nudge (the files' rank does not).
    facts = [
        StoredFact(
            fact_id=row[14],
            day=row[2],
            text=row[15],
            tier=row[16],
            scope=str(scope),
            shard_bot=row[18],
            file=row[19],
            rank=row[3] + row[11] if row[11] else row[3],
            visibility=row[9],
            meta=json.loads(row[17]) if isinstance(row[17], str) else row[17],
            position=row[5],
        )
        for row in chosen
    ]
    kind: BlockKind = scope.kind  # type: ignore[assignment]
    # Worked out once per load: a remembered block is checked by the detector only when loaded.
    flagged = frozenset(f.fact_id for f in facts if fact_flag(f))
    return BlockInput(
        kind=kind, name=scope.name, facts=facts, on_disk=on_disk, private=private, flagged=flagged
    )
