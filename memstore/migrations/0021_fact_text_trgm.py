"""pg_trgm's trigram index on facts' text (`fact_text_trgm`), where the server offers pg_trgm.

Recall's last resort on a partial word ("lisb", "isbo") is `text ILIKE '%…%'`
(`memstore.recall.partial`); with this index that statement reads only the facts holding the
text's trigrams instead of every fact of the scope. A server without pg_trgm (a `DATABASE_URL`
Postgres without the contrib package, or where this role may not create extensions) migrates
all the same and keeps the fallback without it; `partial.trigram_ready` asks which it is.

The migration is not atomic, so `manage.py migrate` builds the index `CONCURRENTLY`: on a big
existing store a plain `CREATE INDEX` blocks every write to the facts for as long as the build
takes (seconds per million facts), a concurrent one lets saves go on. Run inside a transaction
(a test, a caller's atomic block) it builds there as before; the index is the same either way.
A concurrent build that failed leaves an invalid index behind, which the next run drops and
builds again.
"""

from django.db import migrations

INDEX = "fact_text_trgm"


def _trgm_schema(cursor, *, in_transaction: bool = True) -> str | None:
    """The schema pg_trgm is installed in (installed here if offered and allowed), or None.
    `in_transaction`: a refused CREATE EXTENSION is rolled back to a savepoint (outside one,
    in autocommit, it leaves nothing to undo)."""
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
    if in_transaction:
        cursor.execute("SAVEPOINT memstore_pg_trgm")
    try:
        cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except Exception:
        # Offered but not ours to install (no privilege): the fallback without the index.
        if in_transaction:
            cursor.execute("ROLLBACK TO SAVEPOINT memstore_pg_trgm")
        return None
    if in_transaction:
        cursor.execute("RELEASE SAVEPOINT memstore_pg_trgm")
    return _trgm_schema(cursor, in_transaction=in_transaction)


def create_trigram_index(apps, schema_editor) -> None:
    connection = schema_editor.connection
    in_transaction = connection.in_atomic_block
    with connection.cursor() as cursor:
        schema = _trgm_schema(cursor, in_transaction=in_transaction)
        if schema is None:
            return
        # The operator class named with its schema: pg_trgm may live outside the search path.
        opclass = schema_editor.quote_name(schema) + ".gin_trgm_ops"
        how = "INDEX" if in_transaction else "INDEX CONCURRENTLY"
        if not in_transaction:
            cursor.execute(
                "SELECT NOT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass(%s)",
                [INDEX],
            )
            left = cursor.fetchone()
            if left is not None and left[0]:  # an earlier concurrent build failed half-way
                cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX}")
        cursor.execute(
            f"CREATE {how} IF NOT EXISTS {INDEX} ON memstore_fact USING gin (text {opclass})"
        )


def drop_trigram_index(apps, schema_editor) -> None:
    # The extension stays: other things may use it, and dropping it needs more privilege.
    how = "INDEX" if schema_editor.connection.in_atomic_block else "INDEX CONCURRENTLY"
    schema_editor.execute(f"DROP {how} IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    # Not atomic: CREATE INDEX CONCURRENTLY can't run in a transaction block.
    atomic = False

    dependencies = [
        ("memstore", "0020_bot_app_private_memory"),
    ]

    operations = [
        migrations.RunPython(create_trigram_index, drop_trigram_index),
    ]
