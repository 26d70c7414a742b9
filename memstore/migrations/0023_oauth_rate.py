"""Rate windows for the open OAuth endpoints (registration, token, revocation): one row counts one
address's requests to one endpoint in one fixed window."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memstore", "0022_fact_until"),
    ]

    operations = [
        migrations.CreateModel(
            name="OAuthRateWindow",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.CharField(max_length=200, unique=True)),
                ("count", models.IntegerField(default=0)),
                ("window_end", models.DateTimeField(db_index=True)),
            ],
        ),
    ]
