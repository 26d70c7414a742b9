"""The scope counts' triggers (0024) in time linear in the rows a statement touches, whatever
plan the server caches.

An UPDATE of fact rows (a line inserted at the top of a file moves every line below it) asked
whether any counted column changed by joining the statement's old and new rows on their ids.
Those transition tables carry no statistics and the trigger's plan is cached per connection, so
the join could run as a nested loop: a 20,000-line file shifted by one line took 87 s of database
CPU, a 100,000-line file about half an hour (a background sync that held up everything after
it). The question is now a set difference, which is hashed or sorted, never nested. The count's
own lookup of the rows of the identities touched goes identity by identity through the
`fact_id` index, whatever the table's statistics say (stale ones, "3 rows" taken while a big
drop-in was being written, had it scan the whole table once per identity).
"""

from importlib import import_module

from django.db import migrations

_CHANGED = """
CREATE OR REPLACE FUNCTION memstore_scope_counts_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('memstore.counts_off', true) = 'on' THEN RETURN NULL; END IF;
    -- The same ids before and after: no new row differs from its old one in a counted column
    -- when the new rows, less the old ones, leave nothing (a set difference: never a nested loop).
    IF NOT EXISTS (
        SELECT id, fact_id, scope_key, day, shard_bot, file_id, tier, visibility FROM new_rows
        EXCEPT
        SELECT id, fact_id, scope_key, day, shard_bot, file_id, tier, visibility FROM old_rows
    ) THEN
        RETURN NULL;  -- the usual update: lines moved (positions), ranks recomputed
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('memstore scope count ' || s.scope_key))
    FROM (SELECT scope_key FROM old_rows UNION SELECT scope_key FROM new_rows ORDER BY 1) s;
    PERFORM memstore_scope_counts_move(({new}), ({old}), '[]', '[]');
    RETURN NULL;
END $$;
"""

_PRIOR = import_module("memstore.migrations.0024_prompt_read")

# The rows now held of each identity touched, read identity by identity through the fact_id
# index: a lateral subquery kept apart (`OFFSET 0`) can only run once per identity, and with
# sequential scans off it can't scan the table for one. (Joined instead, a table whose
# statistics say "3 rows" while a 100,000-line drop-in is being written got scanned in full once
# per identity: the same square.)
_MOVE = _PRIOR._MOVE.replace(
    """        FROM ids JOIN memstore_fact f ON f.fact_id = ids.fact_id AND f.scope_key = ids.scope_key
        WHERE f.id NOT IN (SELECT id FROM o)""",
    """        FROM ids, LATERAL (
            SELECT * FROM memstore_fact g
            WHERE g.fact_id = ids.fact_id AND g.scope_key || '' = ids.scope_key OFFSET 0
        ) f
        WHERE f.id NOT IN (SELECT id FROM o)""",
).replace(
    ") RETURNS void LANGUAGE sql AS $$",
    ") RETURNS void LANGUAGE sql SET enable_seqscan = off AS $$",
)
assert "LATERAL" in _MOVE and "enable_seqscan" in _MOVE


def _changed() -> str:
    new, old = (_PRIOR._JSON.format(table=table) for table in ("new_rows", "old_rows"))
    return _CHANGED.replace("{new}", new).replace("{old}", old)


class Migration(migrations.Migration):
    dependencies = [
        ("memstore", "0027_feed"),
    ]

    operations = [
        migrations.RunSQL(_MOVE + _changed(), _PRIOR._FUNCTIONS),
    ]
