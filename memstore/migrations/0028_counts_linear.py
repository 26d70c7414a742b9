"""The scope counts' triggers (0024) in time linear in the rows a statement touches, whatever
plan the server caches.

An UPDATE of fact rows (a line inserted at the top of a file moves every line below it) asked
whether any counted column changed by joining the statement's old and new rows on their ids.
Those transition tables carry no statistics and the trigger's plan is cached per connection, so
the join could run as a nested loop: a 20,000-line file shifted by one line took 87 s of database
CPU, a 100,000-line file about half an hour (a background sync that held up everything after
it). The question is now a set difference, which is hashed or sorted, never nested. The count's
own lookup of the rows of the identities touched goes by `fact_id` alone (the index that picks
one identity), so a stale or empty table's statistics can't send it through a whole scope per
identity.
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
_BY_SCOPE = "AND f.scope_key = ids.scope_key"
assert _BY_SCOPE in _PRIOR._MOVE
# `|| ''` keeps the scope's indexes out of the lookup: each identity is found by its fact_id.
_MOVE = _PRIOR._MOVE.replace(_BY_SCOPE, "AND f.scope_key || '' = ids.scope_key")


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
