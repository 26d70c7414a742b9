"""manage.py people: a person's memory controls (pause, resume, exclude, include, controls); see
`memstore.management.controls`. The people registry's own subcommands join this command."""

from django.core.management.base import BaseCommand, CommandError

from memstore.errors import MemstoreError
from memstore.management.controls import ControlsMixin


class Command(ControlsMixin, BaseCommand):
    help = "A person's memory controls: pause, resume, exclude and include topics."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        self.add_control_parsers(sub)

    def handle(self, *args, action: str, **options):
        try:
            getattr(self, f"do_{action.replace('-', '_')}")(**options)
        except MemstoreError as exc:
            raise CommandError(exc.message) from None
