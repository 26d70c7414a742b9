"""A writer's own change to one memory file, put into the index in one statement.

Owns: `written_rows`. A service that changed a file it had read at the version the index holds
(the file row's digest is the digest of the bytes it read) knows that only the facts it declared
changed, and into what: the file row takes the stat and digest of what it wrote (marked for a
recheck, as every file indexed right after a write is: see `rows.RACY_NS`), and the declared
facts' rows and links in that file are replaced by those the new lines hold. One statement does
all of it, so a save pays one round trip for its index rows (the ordinary sync of a file takes
seven); outside a caller's transaction its commit does not wait for the WAL flush (the index is
rebuilt from the files). It changes nothing, and says so, if the file row is not at that digest
when it runs: the caller then syncs the file the ordinary way (`sync.index_sync_file`). Rows of
other files of the writer that it found holding their indexed bytes under a new stat get that
stat in the same statement (what a sync does for a touched file).

Does not: read or parse a file, record history (nothing but the declared facts changed), or take
a lock (the caller holds the writing bot's).
"""

import json
import time
from collections.abc import Iterable

from django.db import connection

from memstore.facts import markdown
from memstore.facts.paths import FileLocation
from memstore.index.rows import RACY_NS, Placed, Stat, fact_row
from memstore.models import MemoryFile

_FACT_COLUMNS = "fact_id, day, text, position, line, meta, tier, weight, rank, visibility"
_FACT_VALUES = "(%s, %s::date, %s, %s::int, %s, %s::jsonb, %s, %s::float8, %s::float8, %s)"


def written_rows(
    location: FileLocation,
    *,
    file_id: int,
    before: str,
    after: str,
    stat: Stat,
    lines: list[markdown.Line],
    declared: Iterable[str],
    restat: Iterable[tuple[int, str, Stat]] = (),
) -> bool:
    """Index the file a writer changed from the version with digest `before` (the row `file_id`
    must be at it) into `lines` (digest `after`, on disk with `stat`), where only the facts
    `declared` changed; False (nothing done) if the row is not at `before`. `restat`: rows of
    other files of the writer (row id, digest, stat) that it found holding the bytes they were
    made from under a new stat; each takes that stat if it is still at that digest."""
    declared = sorted(set(declared))
    scope_key, bot = str(location.shard.scope), location.shard.bot
    file_row = MemoryFile(id=file_id)
    placed = _placed(lines, set(declared))
    facts = [fact_row(file_row, location, each) for each in placed]
    links = [
        (each.fact.identity, kind, target)
        for each in placed
        for kind, target in markdown.links_of(each.fact)
    ]
    parts = [
        "WITH g AS (SELECT id FROM memstore_memoryfile WHERE id = %s AND digest = %s)",
        ", d AS (DELETE FROM memstore_fact f USING g"
        " WHERE f.file_id = g.id AND f.fact_id = ANY(%s) RETURNING 1)",
        ", dl AS (DELETE FROM memstore_link l USING g"
        " WHERE l.file_id = g.id AND l.source = ANY(%s))",
    ]
    params: list = [file_id, before, declared, declared]
    for part, values in (
        _facts_part(facts, scope_key, bot),
        _links_part(links, scope_key, bot),
        _restat_part([each for each in restat if each[0] != file_id]),
    ):
        if part:
            parts.append(part)
            params += values
    inserted = "(SELECT count(*) FROM i)" if facts else "0"
    parts.append(
        ", u AS (UPDATE memstore_memoryfile m SET mtime_ns = %s, size = %s, inode = %s,"
        " digest = %s, recheck = %s, error = '', synced_at = now(),"
        f" fact_count = m.fact_count - (SELECT count(*) FROM d) + {inserted}"
        " FROM g WHERE m.id = g.id RETURNING 1)"
    )
    params += [*stat, after, time.time_ns() - stat[0] < RACY_NS]
    # Outside a transaction the statement is its own: its commit need not wait for the WAL.
    lazy = "" if connection.in_atomic_block else ", set_config('synchronous_commit', 'off', true)"
    parts.append(f" SELECT (SELECT count(*) FROM u){lazy}")
    with connection.cursor() as cursor:
        cursor.execute("".join(parts), params)
        return cursor.fetchone()[0] == 1


def _facts_part(facts: list, scope_key: str, bot: str) -> tuple[str, list]:
    # The statement's insert of the new fact rows, and its parameters ("" for none).
    if not facts:
        return "", []
    params: list = [scope_key, bot]
    for row in facts:
        params += [
            row.fact_id,
            row.day.isoformat(),
            row.text,
            row.position,
            row.line,
            json.dumps(row.meta),
            row.tier,
            row.weight,
            row.rank,
            row.visibility,
        ]
    return (
        f", i AS (INSERT INTO memstore_fact (file_id, scope_key, shard_bot, {_FACT_COLUMNS})"
        f" SELECT g.id, %s, %s, v.* FROM g, (VALUES {', '.join([_FACT_VALUES] * len(facts))})"
        f" v({_FACT_COLUMNS}) RETURNING 1)"
    ), params


def _links_part(links: list[tuple[str, str, str]], scope_key: str, bot: str) -> tuple[str, list]:
    # The statement's insert of the new link rows, and its parameters ("" for none).
    if not links:
        return "", []
    values = ", ".join(["(%s, %s, %s)"] * len(links))
    return (
        ", il AS (INSERT INTO memstore_link (file_id, scope_key, shard_bot, source, kind,"
        f" target) SELECT g.id, %s, %s, v.* FROM g, (VALUES {values}) v(source, kind, target))"
    ), [scope_key, bot, *(value for link in links for value in link)]


def _restat_part(restat: list[tuple[int, str, Stat]]) -> tuple[str, list]:
    # The statement's new stats for the writer's other rows still at their digest ("" for none).
    if not restat:
        return "", []
    values = ", ".join(["(%s::bigint, %s, %s::bigint, %s::bigint, %s::bigint, %s)"] * len(restat))
    params: list = []
    now = time.time_ns()
    for row_id, digest, (mtime_ns, size, inode) in restat:
        params += [row_id, digest, mtime_ns, size, inode, now - mtime_ns < RACY_NS]
    return (
        ", r AS (UPDATE memstore_memoryfile m SET mtime_ns = v.mtime_ns, size = v.size,"
        f" inode = v.inode, recheck = v.recheck FROM (VALUES {values})"
        " v(id, digest, mtime_ns, size, inode, recheck)"
        " WHERE m.id = v.id AND m.digest = v.digest)"
    ), params


def _placed(lines: list[markdown.Line], declared: set[str]) -> list[Placed]:
    # The declared facts the lines hold, each once as the index holds it (`rows.unique_facts`:
    # the newest date wins, the first line a tie).
    found: dict[str, Placed] = {}
    for number, line in enumerate(lines, 1):
        fact = line.fact
        if fact is None or fact.identity not in declared:
            continue
        seen = found.get(fact.identity)
        if seen is None or fact.day > seen.fact.day:
            found[fact.identity] = Placed(fact, number)
    return list(found.values())
