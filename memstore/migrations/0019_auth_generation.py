"""The workspace's authorization generation (memstore/registry/generation.py): one counter row
that every write to who-may-call-what moves, by Postgres triggers, so no code path, admin page
or raw statement can forget it. Its values come from a sequence, which never hands out a number
twice even when the write that took it rolls back, so a per-process cache filled at a number
can never become valid again by accident."""

from django.db import migrations

TABLE = "memstore_authgeneration"
BUMP = "memstore_authgeneration_bump"

# (table, the events that change what a cached token, person link or room binding says)
WATCHED = (
    ("memstore_bottoken", "UPDATE OF revoked_at, digest, bot_id OR DELETE OR TRUNCATE"),
    ("memstore_bot", "INSERT OR UPDATE OF slug OR DELETE OR TRUNCATE"),
    ("memstore_projectmember", "INSERT OR UPDATE OR DELETE OR TRUNCATE"),
    ("memstore_person", "INSERT OR UPDATE OF name OR DELETE OR TRUNCATE"),
    ("memstore_personlink", "INSERT OR UPDATE OR DELETE OR TRUNCATE"),
    ("memstore_roombinding", "INSERT OR UPDATE OR DELETE OR TRUNCATE"),
)

FORWARD = [
    f"CREATE SEQUENCE {TABLE}_seq",
    f"CREATE TABLE {TABLE} (id integer PRIMARY KEY CHECK (id = 1), n bigint NOT NULL)",
    f"INSERT INTO {TABLE} VALUES (1, nextval('{TABLE}_seq'))",
    f"""CREATE FUNCTION {BUMP}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE {TABLE} SET n = nextval('{TABLE}_seq') WHERE id = 1;
            RETURN NULL;
        END $$""",
    *(
        f"CREATE TRIGGER {table}_auth_generation AFTER {events} ON {table} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {BUMP}()"
        for table, events in WATCHED
    ),
]
BACKWARD = [
    *(f"DROP TRIGGER IF EXISTS {table}_auth_generation ON {table}" for table, _ in WATCHED),
    f"DROP FUNCTION IF EXISTS {BUMP}()",
    f"DROP TABLE IF EXISTS {TABLE}",
    f"DROP SEQUENCE IF EXISTS {TABLE}_seq",
]


class Migration(migrations.Migration):
    dependencies = [
        ("memstore", "0018_rerank_usage"),
    ]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
