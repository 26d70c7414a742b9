"""Lessons said again (`memstore.models.LessonRepeat`): a save of a lesson its bot's own memory
already held, counted by lessons for agents."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memstore", "0028_counts_linear"),
    ]

    operations = [
        migrations.CreateModel(
            name="LessonRepeat",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("bot", models.CharField(max_length=63)),
                ("scope_key", models.CharField(max_length=80)),
                ("fact_id", models.CharField(max_length=16)),
                ("text", models.TextField()),
                ("via", models.CharField(max_length=16)),
                ("at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "indexes": [
                    models.Index(fields=["bot", "-at"], name="memstore_le_bot_5adb5e_idx"),
                    models.Index(fields=["fact_id"], name="memstore_le_fact_id_02dc45_idx"),
                ],
            },
        ),
    ]
