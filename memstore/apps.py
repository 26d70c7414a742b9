"""Django app config for the memory service layer."""

from django.apps import AppConfig


class MemstoreConfig(AppConfig):
    name = "memstore"
    verbose_name = "Memory store"
    default_auto_field = "django.db.models.BigAutoField"
