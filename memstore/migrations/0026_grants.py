"""Grants: a bot token's scopes (memory:read, memory:write) and a project membership's access
(read, read_write); existing tokens and memberships keep full access. And `fact_mark`, a
partial index on the few facts with a feedback `mark=` (wrong, do-not-use leave prompts and
recall at once), as `fact_until` is for `until=`."""

from django.db import migrations, models

import memstore.models.registry


class Migration(migrations.Migration):
    dependencies = [("memstore", "0025_sources")]

    operations = [
        migrations.AddField(
            model_name="bottoken",
            name="scopes",
            field=models.JSONField(default=memstore.models.registry.all_grants),
        ),
        migrations.AddField(
            model_name="projectmember",
            name="access",
            field=models.CharField(default="read_write", max_length=10),
        ),
        migrations.AddIndex(
            model_name="fact",
            index=models.Index(
                condition=models.Q(("meta__has_key", "mark")),
                fields=["scope_key"],
                name="fact_mark",
            ),
        ),
    ]
