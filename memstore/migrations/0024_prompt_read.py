"""What the prompt reads instead of sorting a whole scope: each file's rows in rank order
(`fact_file_rank`), and the scope's counts of merged facts per tier part and visibility
(`memstore_scopecount`), kept by triggers on the fact rows.

The counts follow the prompt's merge: one per identity per scope, the newest copy winning (a
tie to the first shard, then file, by name). A statement that inserts, deletes or changes fact
rows recounts only the identities it touched, under a lock per scope held to its commit, so
writers of one shared scope never count the same identity twice. A rebuild switches the
triggers off for its bulk load (`SET LOCAL memstore.counts_off = 'on'`) and fills the table
in one pass (`memstore_scope_counts_fill()`), as this migration does.

The migration is not atomic, so the index is built `CONCURRENTLY` on a big store (saves go
on meanwhile); inside a transaction (tests) it is built there. A failed concurrent build
leaves an invalid index, which the next run drops and builds again.
"""

from django.db import migrations, models, transaction

INDEX = "fact_file_rank"

_ROW = (
    "id bigint, scope_key text, fact_id text, day date, shard_bot text, file_id bigint,"
    " tier text, visibility text"
)

# The change to the counts of the identities some rows belong to: their winners (one per scope
# and identity) counted by part and visibility after, less before, where after is the rows now
# held (less `extra_out`, plus `extra_in`: see the trigger) and before is after less `added`,
# plus `removed`. Rows are JSON arrays of objects with the columns of `_ROW`.
_MOVE = f"""
CREATE OR REPLACE FUNCTION memstore_scope_counts_move(
    added jsonb, removed jsonb, extra_in jsonb, extra_out jsonb
) RETURNS void LANGUAGE sql AS $$
    WITH a AS (SELECT * FROM jsonb_to_recordset(added) AS r({_ROW})),
    d AS (SELECT * FROM jsonb_to_recordset(removed) AS r({_ROW})),
    i AS (SELECT * FROM jsonb_to_recordset(extra_in) AS r({_ROW})),
    o AS (SELECT * FROM jsonb_to_recordset(extra_out) AS r({_ROW})),
    ids AS (
        SELECT scope_key, fact_id FROM a UNION SELECT scope_key, fact_id FROM d
        UNION SELECT scope_key, fact_id FROM i UNION SELECT scope_key, fact_id FROM o
    ),
    after_rows AS (
        SELECT f.id, f.scope_key, f.fact_id, f.day, f.shard_bot, f.file_id, f.tier::text,
               f.visibility::text
        FROM ids JOIN memstore_fact f ON f.fact_id = ids.fact_id AND f.scope_key = ids.scope_key
        WHERE f.id NOT IN (SELECT id FROM o)
        UNION ALL SELECT * FROM i
    ),
    before_rows AS (
        SELECT * FROM after_rows WHERE id NOT IN (SELECT id FROM a)
        UNION ALL SELECT * FROM d
    ),
    moved AS (
        SELECT scope_key, profile, visibility, sum(n) AS n FROM (
            (SELECT DISTINCT ON (x.scope_key, x.fact_id) x.scope_key, x.tier = 'profile'
                    AS profile, x.visibility, 1 AS n
             FROM after_rows x LEFT JOIN memstore_memoryfile m ON m.id = x.file_id
             ORDER BY x.scope_key, x.fact_id, x.day DESC, x.shard_bot, m.path)
            UNION ALL
            (SELECT DISTINCT ON (x.scope_key, x.fact_id) x.scope_key, x.tier = 'profile'
                    AS profile, x.visibility, -1 AS n
             FROM before_rows x LEFT JOIN memstore_memoryfile m ON m.id = x.file_id
             ORDER BY x.scope_key, x.fact_id, x.day DESC, x.shard_bot, m.path)
        ) w GROUP BY 1, 2, 3 HAVING sum(n) <> 0
    )
    INSERT INTO memstore_scopecount (scope_key, profile, visibility, n)
    SELECT scope_key, profile, visibility, n FROM moved ORDER BY 1, 2, 3
    ON CONFLICT (scope_key, profile, visibility)
    DO UPDATE SET n = memstore_scopecount.n + EXCLUDED.n;
$$;
"""

_JSON = (
    "SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'scope_key', scope_key,"
    " 'fact_id', fact_id, 'day', day, 'shard_bot', shard_bot, 'file_id', file_id,"
    " 'tier', tier, 'visibility', visibility)), '[]') FROM {table}"
)

# One statement may both delete and insert rows of one identity (a save that keeps the text):
# its two triggers then each see the statement's end. The first to fire counts its change as
# if it were the statement's only one and leaves its rows (`memstore.counts_stash`, keyed by
# the transaction and the statement's start); the second counts its own in the world without
# the first's (the deleted rows back, or the inserted ones out), so the two add up to the
# statement's change. A statement of more than `STASHED` rows leaves none: no writer combines
# a delete and an insert that large in one statement.
_TRIGGER = """
CREATE OR REPLACE FUNCTION memstore_scope_counts_{name}() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    key text := pg_current_xact_id()::text || '@' || statement_timestamp()::text;
    stash text := coalesce(current_setting('memstore.counts_stash', true), '');
    other jsonb := '[]';
    mine jsonb;
BEGIN
    IF current_setting('memstore.counts_off', true) = 'on' THEN RETURN NULL; END IF;
    mine := ({mine});
    IF jsonb_array_length(mine) = 0 THEN RETURN NULL; END IF;
    IF left(stash, length(key) + 1) = key || '|' THEN
        other := substr(stash, length(key) + 2)::jsonb;
    END IF;
    PERFORM set_config('memstore.counts_stash', CASE WHEN jsonb_array_length(mine) <= 1000
        THEN key || '|' || mine::text ELSE '' END, true);
    -- Writers of one scope count one at a time (to their commits): no identity twice.
    PERFORM pg_advisory_xact_lock(hashtext('memstore scope count ' || s.scope_key))
    FROM (SELECT DISTINCT r.scope_key FROM jsonb_to_recordset(mine) AS r(scope_key text)
          ORDER BY 1) s;
    PERFORM memstore_scope_counts_move({args});
    RETURN NULL;
END $$;
"""

_FUNCTIONS = (
    _MOVE
    + _TRIGGER.replace("{name}", "added")
    .replace("{mine}", _JSON.format(table="new_rows"))
    .replace("{args}", "mine, '[]', other, '[]'")
    + _TRIGGER.replace("{name}", "removed")
    .replace("{mine}", _JSON.format(table="old_rows"))
    .replace("{args}", "'[]', mine, '[]', other")
    + """
CREATE OR REPLACE FUNCTION memstore_scope_counts_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('memstore.counts_off', true) = 'on' THEN RETURN NULL; END IF;
    IF NOT EXISTS (
        SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
        WHERE (o.fact_id, o.scope_key, o.day, o.shard_bot, o.file_id, o.tier, o.visibility)
              IS DISTINCT FROM
              (n.fact_id, n.scope_key, n.day, n.shard_bot, n.file_id, n.tier, n.visibility)
    ) THEN
        RETURN NULL;  -- the usual update: lines moved (positions), ranks recomputed
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('memstore scope count ' || s.scope_key))
    FROM (SELECT scope_key FROM old_rows UNION SELECT scope_key FROM new_rows ORDER BY 1) s;
    PERFORM memstore_scope_counts_move(({new}), ({old}), '[]', '[]');
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION memstore_scope_counts_fill() RETURNS void
LANGUAGE sql AS $$
    DELETE FROM memstore_scopecount;
    INSERT INTO memstore_scopecount (scope_key, profile, visibility, n)
    SELECT scope_key, profile, visibility, count(*) FROM (
        SELECT DISTINCT ON (f.scope_key, f.fact_id) f.scope_key, f.tier = 'profile' AS profile,
               f.visibility
        FROM memstore_fact f LEFT JOIN memstore_memoryfile m ON m.id = f.file_id
        ORDER BY f.scope_key, f.fact_id, f.day DESC, f.shard_bot, m.path
    ) w GROUP BY 1, 2, 3;
$$;
""".replace("{new}", _JSON.format(table="new_rows")).replace(
        "{old}", _JSON.format(table="old_rows")
    )
)

_TRIGGERS = """
CREATE TRIGGER memstore_fact_counted_insert AFTER INSERT ON memstore_fact
REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION memstore_scope_counts_added();
CREATE TRIGGER memstore_fact_counted_delete AFTER DELETE ON memstore_fact
REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION memstore_scope_counts_removed();
CREATE TRIGGER memstore_fact_counted_update AFTER UPDATE ON memstore_fact
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION memstore_scope_counts_changed();
"""

_UNDO = """
DROP TRIGGER IF EXISTS memstore_fact_counted_insert ON memstore_fact;
DROP TRIGGER IF EXISTS memstore_fact_counted_delete ON memstore_fact;
DROP TRIGGER IF EXISTS memstore_fact_counted_update ON memstore_fact;
DROP FUNCTION IF EXISTS memstore_scope_counts_added();
DROP FUNCTION IF EXISTS memstore_scope_counts_removed();
DROP FUNCTION IF EXISTS memstore_scope_counts_changed();
DROP FUNCTION IF EXISTS memstore_scope_counts_fill();
DROP FUNCTION IF EXISTS memstore_scope_counts_move(jsonb, jsonb, jsonb, jsonb);
"""


def counts_start(apps, schema_editor) -> None:
    # Triggers and the first fill in one transaction: no write is counted twice or missed.
    connection = schema_editor.connection
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        cursor.execute(_FUNCTIONS)
        cursor.execute(_TRIGGERS)
        cursor.execute("SELECT memstore_scope_counts_fill()")


def counts_stop(apps, schema_editor) -> None:
    schema_editor.execute(_UNDO)


def create_rank_index(apps, schema_editor) -> None:
    connection = schema_editor.connection
    in_transaction = connection.in_atomic_block
    how = "INDEX" if in_transaction else "INDEX CONCURRENTLY"
    with connection.cursor() as cursor:
        if not in_transaction:
            cursor.execute(
                "SELECT NOT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass(%s)",
                [INDEX],
            )
            left = cursor.fetchone()
            if left is not None and left[0]:  # an earlier concurrent build failed half-way
                cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}")
        cursor.execute(
            f"CREATE {how} IF NOT EXISTS {INDEX} ON memstore_fact"
            " (file_id, rank DESC, day DESC, position DESC)"
        )


def drop_rank_index(apps, schema_editor) -> None:
    how = "INDEX" if schema_editor.connection.in_atomic_block else "INDEX CONCURRENTLY"
    schema_editor.execute(f"DROP {how} IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    # Not atomic: CREATE INDEX CONCURRENTLY can't run in a transaction block.
    atomic = False

    dependencies = [
        ("memstore", "0023_oauth_rate"),
    ]

    operations = [
        migrations.CreateModel(
            name="ScopeCount",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("scope_key", models.CharField(max_length=80)),
                ("profile", models.BooleanField()),
                ("visibility", models.CharField(max_length=10)),
                ("n", models.BigIntegerField(default=0)),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("scope_key", "profile", "visibility"), name="unique_scope_count"
                    )
                ],
            },
        ),
        migrations.RunPython(counts_start, counts_stop),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddIndex(
                    model_name="fact",
                    index=models.Index(
                        fields=["file", "-rank", "-day", "-position"], name="fact_file_rank"
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(create_rank_index, drop_rank_index)],
        ),
    ]
