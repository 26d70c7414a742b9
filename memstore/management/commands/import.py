"""`manage.py import <kind> PATH --bot SLUG [--person P] [--project P] [--dry-run]`: bring in
memory from OpenTeam, Claude, Mem0 or Basic Memory, through the bot's own write path.

Running it twice adds nothing. The summary says what was imported, what was already there, and
what was refused or skipped and why.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memstore.errors import MemstoreError
from memstore.facts.paths import check_person, check_slug
from memstore.imports import IMPORT_KINDS, Target, import_run
from memstore.management.progress import ProgressBar
from memstore.registry.bots import bot_get


class Command(BaseCommand):
    help = "Import memory from another tool's files (openteam, claude, mem0, basic-memory)."

    def add_arguments(self, parser):
        parser.add_argument("kind", choices=IMPORT_KINDS)
        parser.add_argument("path", type=Path, help="the file or folder to read")
        parser.add_argument("--bot", required=True, help="the bot that saves the facts")
        parser.add_argument("--person", help="the person facts about a user belong to")
        parser.add_argument("--project", help="save into this project (the bot must have joined)")
        parser.add_argument(
            "--map-user",
            action="append",
            default=[],
            metavar="UID=PERSON",
            help="mem0: the person a user id stands for (repeatable)",
        )
        parser.add_argument("--dry-run", action="store_true", help="read and report; write nothing")

    def handle(self, *args, kind, path: Path, bot, person, project, map_user, dry_run, **opts):
        if not path.exists():
            raise CommandError(f"No such file or folder: {path}")
        try:
            bot_get(slug=bot)
            if person:
                check_person(person)
            if project:
                check_slug(project, "project")
            people = dict(_pair(p) for p in map_user)
            for name in people.values():
                check_person(name)
        except MemstoreError as exc:
            raise CommandError(str(exc)) from None
        target = Target(bot=bot, person=person, project=project, people=people)
        bar = ProgressBar(unit="facts", stream=self.stderr._out)
        report = import_run(
            kind=kind, path=path, target=target, dry_run=dry_run, progress=bar.update
        )
        bar.finish()
        for line in report.lines():
            self.stdout.write(line)


def _pair(value: str) -> tuple[str, str]:
    uid, sep, person = value.partition("=")
    if not sep or not uid or not person:
        raise CommandError(f"--map-user takes UID=PERSON, not {value!r}.")
    return uid, person
