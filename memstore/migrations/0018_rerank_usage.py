from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memstore", "0017_oauth"),
    ]

    operations = [
        migrations.CreateModel(
            name="RerankUsage",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("day", models.DateField(unique=True)),
                ("tokens", models.BigIntegerField(default=0)),
                ("calls", models.IntegerField(default=0)),
            ],
        ),
    ]
