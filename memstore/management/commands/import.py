"""`manage.py import <kind> PATH [--bot SLUG] [--person P] [--project P] [--dry-run]`: bring in
memory from OpenTeam, Letta, Claude Code, Mem0, Basic Memory or a chat history, through the
bot's own write path.

Running it twice adds nothing. Nothing but facts is created unless asked: bots with
--create-bots, people with --create-people, project memberships with --create-projects. The
summary says what was imported, created, already there, refused or skipped, and why.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memstore.errors import MemstoreError
from memstore.facts.paths import check_person, check_slug
from memstore.imports import IMPORT_KINDS, Options, Target, import_run
from memstore.imports.chat import chat_import
from memstore.management.progress import ProgressBar
from memstore.registry.bots import bot_get

_MAPS = {
    "map_user": ("--map-user", "ID=PERSON", "mem0/openteam: the person a source's user id is"),
    "map_agent": ("--map-agent", "ID=SLUG", "openteam/mem0: the bot a source's agent id is"),
    "map_project": ("--map-project", "NAME=SLUG", "claude/openteam: the project a folder is"),
}


class Command(BaseCommand):
    help = (
        "Import memory from another tool's files (openteam, letta, claude, mem0, basic-memory, "
        "chat)."
    )

    def add_arguments(self, parser):
        parser.add_argument("kind", choices=IMPORT_KINDS)
        parser.add_argument("path", type=Path, help="the file or folder to read")
        parser.add_argument("--bot", help="the bot that saves the facts (openteam: optional)")
        parser.add_argument("--person", help="the person facts about a user belong to")
        parser.add_argument("--project", help="save into this project (the bot must have joined)")
        for dest, (flag, metavar, text) in _MAPS.items():
            parser.add_argument(
                flag, dest=dest, action="append", default=[], metavar=metavar, help=text
            )
        parser.add_argument("--create-bots", action="store_true", help="register missing bots")
        parser.add_argument("--create-people", action="store_true", help="register missing people")
        parser.add_argument(
            "--create-projects", action="store_true", help="join the projects the source lists"
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="read and report; change nothing"
        )
        parser.add_argument(
            "--write", action="store_true", help="chat: save what summarize keeps (default: report)"
        )

    def handle(self, *args, kind, path: Path, **opts):
        if not path.exists() and not path.is_symlink():
            raise CommandError(f"No such file or folder: {path}")
        target = _target(kind, opts)
        options = Options(
            dry_run=opts["dry_run"],
            create_bots=opts["create_bots"],
            create_people=opts["create_people"],
            create_projects=opts["create_projects"],
        )
        if kind == "chat":
            report = chat_import(
                path=path, target=target, write=opts["write"], dry_run=opts["dry_run"]
            )
            lines = report.lines()
        else:
            bar = ProgressBar(unit="facts", stream=self.stderr._out)
            report = import_run(
                kind=kind, path=path, target=target, options=options, progress=bar.update
            )
            bar.finish()
            lines = report.lines()
        for line in lines:
            self.stdout.write(line)


def _target(kind: str, opts: dict) -> Target:
    bot, person, project = opts["bot"], opts["person"], opts["project"]
    if not bot and kind != "openteam":
        raise CommandError(f"Name the bot that saves the facts with --bot ({kind}).")
    try:
        if bot and not (kind == "openteam" and opts["create_bots"]):
            bot_get(slug=bot)
        if person:
            check_person(person)
        if project:
            check_slug(project, "project")
        maps = {
            dest: dict(_pair(flag, v) for v in opts[dest]) for dest, (flag, _, _) in _MAPS.items()
        }
        for name in maps["map_user"].values():
            check_person(name)
        for name in [*maps["map_agent"].values(), *maps["map_project"].values()]:
            check_slug(name)
    except MemstoreError as exc:
        raise CommandError(str(exc)) from None
    return Target(
        bot=bot,
        person=person,
        project=project,
        people=maps["map_user"],
        agents=maps["map_agent"],
        projects=maps["map_project"],
    )


def _pair(flag: str, value: str) -> tuple[str, str]:
    key, sep, name = value.partition("=")
    if not sep or not key or not name:
        raise CommandError(f"{flag} takes KEY=NAME, not {value!r}.")
    return key, name
