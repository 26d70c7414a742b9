"""Bundled-model vectors are now made one text per run: new name, new HNSW index.

Vectors made in batches under the old name depended on their batch-mates; they are deleted
here and recomputed once, on the next search or `manage.py recall_embed`. With pgvector, the
partial HNSW index follows the model name.
"""

from django.db import migrations

OLD, NEW = "bge-small-en-v1.5-int8", "bge-small-en-v1.5-int8/single"
_INDEX = (
    "CREATE INDEX IF NOT EXISTS {name} ON memstore_embedding "
    "USING hnsw ((vector::vector(384)) vector_cosine_ops) WHERE model = '{model}'"
)


def _pgvector(schema_editor) -> bool:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = 'memstore_embedding'::regclass AND attname = 'vector'"
        )
        return cursor.fetchone()[0].startswith("vector")


def forward(apps, schema_editor) -> None:
    schema_editor.execute("DELETE FROM memstore_embedding WHERE model = %s", [OLD])
    if _pgvector(schema_editor):
        schema_editor.execute("DROP INDEX IF EXISTS memstore_embedding_bge_small_hnsw")
        schema_editor.execute(
            _INDEX.format(name="memstore_embedding_bge_small_single_hnsw", model=NEW)
        )


def backward(apps, schema_editor) -> None:
    schema_editor.execute("DELETE FROM memstore_embedding WHERE model = %s", [NEW])
    if _pgvector(schema_editor):
        schema_editor.execute("DROP INDEX IF EXISTS memstore_embedding_bge_small_single_hnsw")
        schema_editor.execute(_INDEX.format(name="memstore_embedding_bge_small_hnsw", model=OLD))


class Migration(migrations.Migration):
    dependencies = [
        ("memstore", "0007_fact_position"),
    ]

    operations = [migrations.RunPython(forward, backward)]
