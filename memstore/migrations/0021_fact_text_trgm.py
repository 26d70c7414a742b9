"""pg_trgm's trigram index on facts' text (`fact_text_trgm`), where the server offers pg_trgm.

Recall's last resort on a partial word ("lisb", "isbo") is `text ILIKE '%…%'`
(`memstore.recall.partial`); with this index that statement reads only the facts holding the
text's trigrams instead of every fact of the scope. A server without pg_trgm (a `DATABASE_URL`
Postgres without the contrib package, or where this role may not create extensions) migrates
all the same and keeps the fallback without it; `partial.trigram_ready` asks which it is.
"""

from django.db import migrations

INDEX = "fact_text_trgm"


def _trgm_schema(cursor) -> str | None:
    """The schema pg_trgm is installed in (installed here if offered and allowed), or None."""
    cursor.execute(
        "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
        "WHERE e.extname = 'pg_trgm'"
    )
    row = cursor.fetchone()
    if row is not None:
        return row[0]
    cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'")
    if cursor.fetchone() is None:
        return None
    cursor.execute("SAVEPOINT memstore_pg_trgm")
    try:
        cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except Exception:
        # Offered but not ours to install (no privilege): the fallback without the index.
        cursor.execute("ROLLBACK TO SAVEPOINT memstore_pg_trgm")
        return None
    cursor.execute("RELEASE SAVEPOINT memstore_pg_trgm")
    return _trgm_schema(cursor)


def create_trigram_index(apps, schema_editor) -> None:
    with schema_editor.connection.cursor() as cursor:
        schema = _trgm_schema(cursor)
        if schema is None:
            return
        # The operator class named with its schema: pg_trgm may live outside the search path.
        opclass = schema_editor.quote_name(schema) + ".gin_trgm_ops"
        cursor.execute(
            f"CREATE INDEX IF NOT EXISTS {INDEX} ON memstore_fact USING gin (text {opclass})"
        )


def drop_trigram_index(apps, schema_editor) -> None:
    # The extension stays: other things may use it, and dropping it needs more privilege.
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [
        ("memstore", "0020_bot_app_private_memory"),
    ]

    operations = [
        migrations.RunPython(create_trigram_index, drop_trigram_index),
    ]
