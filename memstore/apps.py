"""Django app config for the memory service layer; after `migrate`, the word index is put in
the language SEARCH_LANGUAGE names (with unaccent where the server has it), so a new
installation folds "café" to "cafe" without a separate command or a restart."""

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _search_language_applied(sender, using="default", **kwargs) -> None:
    from django.db import connections

    from memstore.index.language import language_switch, language_wanted

    if connections[using].vendor != "postgresql":
        return
    # A setting naming no configuration is said by `search_language` and the doctor.
    try:
        wanted = language_wanted()
    except ValueError:
        return
    if language_switch(wanted) and kwargs.get("verbosity", 1):
        print(f"  Word index now in {wanted.wanted} (SEARCH_LANGUAGE).")


class MemstoreConfig(AppConfig):
    name = "memstore"
    verbose_name = "Memory store"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        post_migrate.connect(_search_language_applied, sender=self)
