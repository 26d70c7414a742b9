"""A bot may be an app (its token writes workspace memory, scope server) and may keep a private
memory (its own memory is read only in its own rooms); a group room may be a private
conversation (memory saved there belongs to it)."""

from django.db import migrations, models

# The authorization generation (0019) must move when what a cached token says changes: a bot's
# app and private-memory flags are part of it now (memstore.registry.tokens.Caller.traits).
TRIGGER = "memstore_bot_auth_generation"
BUMP = "memstore_authgeneration_bump"
FORWARD = [
    f"DROP TRIGGER IF EXISTS {TRIGGER} ON memstore_bot",
    f"CREATE TRIGGER {TRIGGER} AFTER INSERT OR UPDATE OF slug, app, private_memory OR DELETE "
    f"OR TRUNCATE ON memstore_bot FOR EACH STATEMENT EXECUTE FUNCTION {BUMP}()",
]
BACKWARD = [
    f"DROP TRIGGER IF EXISTS {TRIGGER} ON memstore_bot",
    f"CREATE TRIGGER {TRIGGER} AFTER INSERT OR UPDATE OF slug OR DELETE OR TRUNCATE "
    f"ON memstore_bot FOR EACH STATEMENT EXECUTE FUNCTION {BUMP}()",
]


class Migration(migrations.Migration):
    dependencies = [
        ("memstore", "0019_auth_generation"),
    ]

    operations = [
        migrations.AddField(model_name="bot", name="app", field=models.BooleanField(default=False)),
        migrations.AddField(
            model_name="bot", name="private_memory", field=models.BooleanField(default=False)
        ),
        migrations.AddField(
            model_name="roombinding", name="private", field=models.BooleanField(default=False)
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
