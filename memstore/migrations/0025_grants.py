"""Grants: a bot token's scopes (memory:read, memory:write) and a project membership's access
(read, read_write). Existing tokens and memberships keep full access."""

from django.db import migrations, models

import memstore.models.registry


class Migration(migrations.Migration):
    dependencies = [("memstore", "0024_prompt_read")]

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
    ]
