"""`manage.py search_language`: which language the word index uses, and (`--apply`) switching it
to SEARCH_LANGUAGE (`memstore.index.language`)."""

import time

from django.core.management.base import BaseCommand, CommandError

from memstore.index.language import language_switch, language_wanted
from memstore.invocation import manage_command
from memstore.recall.snapshot import snapshots_clear


class Command(BaseCommand):
    help = (
        "Show the word index's language against SEARCH_LANGUAGE; with --apply, rebuild the "
        "word vectors in that language (restart running servers and workers afterwards)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--apply", action="store_true", help="rebuild the word vectors if the setting changed"
        )

    def handle(self, *args, apply: bool, **options):
        try:
            language = language_wanted()
        except ValueError as error:
            raise CommandError(str(error)) from None
        accents = "with unaccent" if language.unaccent else "unaccent is not installed"
        if language.current:
            self.stdout.write(f"The word index uses {language.in_use} ({accents}).")
            return
        if not apply:
            self.stdout.write(
                f"SEARCH_LANGUAGE asks for {language.wanted} but the word index uses "
                f"{language.in_use}: run `{manage_command('search_language', '--apply')}` to rebuild it."
            )
            return
        started = time.monotonic()
        self.stderr.write(f"Rebuilding the word vectors: {language.in_use} -> {language.wanted}…")
        language_switch(language)
        snapshots_clear()
        self.stdout.write(
            f"The word index now uses {language.wanted} ({accents}), rebuilt in "
            f"{time.monotonic() - started:.1f} s. Restart running servers and workers."
        )
