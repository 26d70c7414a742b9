"""Scope versions: a cheap summary of a scope's file rows that changes whenever its facts may
have. Recall's vector cache (`vectors`) keys each scope's matrix by it and plans with its last
item, the number of facts the scope's files hold.

Owns: the statement (`VERSIONS_SQL`, one JSON value, so a caller can fold it into another
statement as `recall_search` does), parsing its value, and reading it on its own.
Does not: cache anything or decide what a changed version means.
"""

import json

from django.db import connection

# Any change to a scope's files adds a file row (new id), deletes one (fewer rows) or records a
# new stat or sync time for one, so a scope's tuple changes whenever its facts may have. Its
# last item, the facts the files hold, is what `vectors_search` plans with. One JSON value, so
# a caller can fold this into another statement (`recall_search` does) and parse it the same.
VERSIONS_SQL = (
    "SELECT coalesce(json_agg(json_build_array(scope_key, n, top, synced, mtimes, size, facts)"
    " ORDER BY scope_key), '[]') FROM ("
    " SELECT scope_key, count(*) AS n, max(id) AS top, max(synced_at)::text AS synced,"
    " sum(mtime_ns)::text AS mtimes, sum(size)::text AS size,"
    " coalesce(sum(fact_count), 0) AS facts"
    " FROM memstore_memoryfile WHERE scope_key = ANY(%s) GROUP BY scope_key) v"
)


def versions_parse(value: list | str) -> dict[str, tuple]:
    """Scope key -> version tuple, from the value VERSIONS_SQL selects."""
    rows = json.loads(value) if isinstance(value, str) else value
    return {row[0]: tuple(row[1:]) for row in rows}


def versions_read(keys: list[str]) -> dict[str, tuple]:
    """Scope key -> version tuple for these scopes (scopes without files are left out)."""
    with connection.cursor() as cursor:
        cursor.execute(VERSIONS_SQL, [keys])
        return versions_parse(cursor.fetchone()[0])
