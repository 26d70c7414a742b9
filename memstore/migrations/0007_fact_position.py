"""Each fact row keeps its line position (ties in rank go to the later line), and its
text is stored whole (a hand-written line over the 500-character save limit was cut at 600).

The text column feeds the generated `search` column, which Postgres will not let change type in
place: the generated column (and its GIN index) is dropped and made again around the change.
"""

from django.db import migrations, models

_TEXT_TO_UNBOUNDED = """
ALTER TABLE memstore_fact DROP COLUMN search;
ALTER TABLE memstore_fact ALTER COLUMN text TYPE text;
ALTER TABLE memstore_fact ADD COLUMN search tsvector
    GENERATED ALWAYS AS (to_tsvector('english'::regconfig, text)) STORED;
CREATE INDEX memstore_fa_search_017c9f_gin ON memstore_fact USING gin (search);
"""
_TEXT_TO_BOUNDED = """
ALTER TABLE memstore_fact DROP COLUMN search;
ALTER TABLE memstore_fact ALTER COLUMN text TYPE varchar(600) USING left(text, 600);
ALTER TABLE memstore_fact ADD COLUMN search tsvector
    GENERATED ALWAYS AS (to_tsvector('english'::regconfig, text)) STORED;
CREATE INDEX memstore_fa_search_017c9f_gin ON memstore_fact USING gin (search);
"""


class Migration(migrations.Migration):
    dependencies = [("memstore", "0006_api_idempotency")]

    operations = [
        migrations.AddField(
            model_name="fact", name="position", field=models.IntegerField(default=0)
        ),
        migrations.RunSQL(
            _TEXT_TO_UNBOUNDED,
            reverse_sql=_TEXT_TO_BOUNDED,
            state_operations=[
                migrations.AlterField(model_name="fact", name="text", field=models.TextField())
            ],
        ),
    ]
