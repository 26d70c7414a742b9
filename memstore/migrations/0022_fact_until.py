"""A partial index on the facts that carry an `until` day (`fact_until`): recall reads the expired
ones of the searched scopes with each result's rows, to leave them out of "N more", and most facts
have no `until`, so the index is small and the read touches only those few rows."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memstore", "0021_fact_text_trgm"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="fact",
            index=models.Index(
                condition=models.Q(("meta__has_key", "until")),
                fields=["scope_key"],
                name="fact_until",
            ),
        ),
    ]
