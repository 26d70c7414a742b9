"""The facts still waiting for a vector, read through indexes whatever the statistics say.

The backfill (and every read that asks whether one is needed) looked for the next facts without
a vector with one query: the facts after a row id, less those with a vector under the model (and,
for the static tier, under the full model too). Planned while the table's statistics still
described the store before a 1,000,000-line drop-in (autovacuum had not analyzed it yet), it
became a nested loop comparing every fact with every stored vector by text: five minutes for one
chunk of 2,000, with the drop-in waiting for meaning behind it. As a function run with sequential
scans off, the query walks the facts by id and probes the vectors' (model, fact_id) index for
each, which is the plan it has when the statistics are right.
"""

from django.db import migrations

_FUNCTION = """
CREATE OR REPLACE FUNCTION memstore_vectors_pending(
    after bigint, wanted text, unless text, most integer
) RETURNS TABLE (id bigint, fact_id text, text text)
LANGUAGE sql STABLE SET enable_seqscan = off AS $$
    SELECT f.id, f.fact_id::text, f.text FROM memstore_fact f
    WHERE f.id > after
      AND NOT EXISTS (
          SELECT 1 FROM memstore_embedding e WHERE e.model = wanted AND e.fact_id = f.fact_id
      )
      AND (unless IS NULL OR NOT EXISTS (
          SELECT 1 FROM memstore_embedding u WHERE u.model = unless AND u.fact_id = f.fact_id
      ))
    ORDER BY f.id LIMIT most
$$;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("memstore", "0029_lesson_repeats"),
    ]

    operations = [
        migrations.RunSQL(
            _FUNCTION,
            "DROP FUNCTION IF EXISTS memstore_vectors_pending(bigint, text, text, integer);",
        ),
    ]
