"""Importance counts in the rank: recompute the stored rank of facts that carry an
`importance=` in their metadata, with the formula in `memstore.facts.ranking.rank_of`.

Facts without an importance keep their rank (the formula is unchanged for them). Reverse is a
no-op: `manage.py reindex` rebuilds every rank from the files anyway.
"""

from django.db import migrations

from memstore.facts.ranking import importance_of, rank_of


def forward(apps, schema_editor) -> None:
    Fact = apps.get_model("memstore", "Fact")
    changed = []
    for row in Fact.objects.filter(meta__has_key="importance").only("id", "day", "weight", "meta"):
        row.rank = rank_of(day=row.day, weight=row.weight, importance=importance_of(row.meta))
        changed.append(row)
    Fact.objects.bulk_update(changed, ["rank"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("memstore", "0008_embedding_one_text_per_run")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop)]
