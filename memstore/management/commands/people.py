"""manage.py people: the people registry, which bots may act for whom, rooms and console editors.

people add NAME [--user USERNAME]  register a person (one spelling, any case), tied to an account
people list                        every person with their console account and linked bots
people link PERSON BOT             let the bot act for the person (their memory in direct rooms)
people unlink PERSON BOT           stop it (what it wrote about them stays on disk)
people import                      register everyone with a user-memory folder or an account
people rooms [--bot BOT]           rooms as first named (kind, person, first bot)
people reset-room ROOM             forget a room's kind and person; the next call binds it again
people editor USERNAME BOT [--remove]  let a console account edit that bot (or stop it)

Memory controls (see `memstore.management.controls`): people pause|resume PERSON,
people exclude|include PERSON TOPIC, people controls PERSON.
"""

from django.core.management.base import BaseCommand, CommandError

from memstore.errors import MemstoreError
from memstore.facts.paths import memory_root
from memstore.invocation import manage_command
from memstore.management.controls import ControlsMixin
from memstore.registry.people import (
    editor_add,
    editor_remove,
    people_import,
    people_list,
    person_add,
    person_link,
    person_unlink,
)
from memstore.rooms.tickets import room_reset, rooms_bound


class Command(ControlsMixin, BaseCommand):
    help = "Register people, link them to bots, reset rooms and make console editors."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        add = sub.add_parser("add", help="register a person")
        add.add_argument("name")
        add.add_argument("--user", default=None, help="their console account (username)")
        sub.add_parser("list", help="every person with their linked bots")
        for name, text in (("link", "let a bot act for a person"), ("unlink", "stop it")):
            link = sub.add_parser(name, help=text)
            link.add_argument("person")
            link.add_argument("bot")
        sub.add_parser("import", help="register people from folders and console accounts")
        rooms = sub.add_parser("rooms", help="rooms as first named")
        rooms.add_argument("--bot", default=None, help="only rooms this bot named first")
        reset = sub.add_parser("reset-room", help="forget a room's kind and person")
        reset.add_argument("room")
        editor = sub.add_parser("editor", help="let a console account edit a bot")
        editor.add_argument("username")
        editor.add_argument("bot")
        editor.add_argument("--remove", action="store_true", help="take the account off")
        self.add_control_parsers(sub)

    def handle(self, *args, action: str, **options):
        try:
            getattr(self, f"do_{action.replace('-', '_')}")(**options)
        except MemstoreError as exc:
            raise CommandError(exc.message) from None

    def do_add(self, *, name: str, user: str | None, **_):
        person = person_add(name=name, username=user)
        tied = f", console account {person.username}" if person.username else ""
        self.stdout.write(
            f"Registered {person.name}{tied}. Next: {manage_command('people', 'link', person.name, 'BOT')}"
        )

    def do_list(self, **_):
        people = people_list()
        if not people:
            self.stdout.write(
                f"Nobody is registered yet: {manage_command('people', 'add', 'NAME')}"
            )
        for p in people:
            bots = ", ".join(p.bots) or "no bots"
            self.stdout.write(f"{p.name:<24} {p.username or '-':<16} {bots}")

    def do_link(self, *, person: str, bot: str, **_):
        created = person_link(person=person, bot=bot)
        self.stdout.write(
            f"Bot {bot} {'may now act' if created else 'could already act'} for {person}."
        )

    def do_unlink(self, *, person: str, bot: str, **_):
        removed = person_unlink(person=person, bot=bot)
        self.stdout.write(
            f"Bot {bot} {'no longer acts' if removed else 'was not linked'} for {person}."
        )

    def do_import(self, **_):
        added, skipped = people_import(root=memory_root())
        self.stdout.write(f"Registered {len(added)}: {', '.join(added) or 'nobody new'}.")
        if skipped:
            self.stdout.write(
                "Not registered (a name not allowed, or another spelling of a registered "
                f"person; merge their folders by hand): {', '.join(skipped)}."
            )

    def do_rooms(self, *, bot: str | None, **_):
        for room in rooms_bound(first_bot=bot):
            person = f" with {room.person}" if room.person else ""
            self.stdout.write(f"{room.room_id:<32} {room.kind}{person} (first: {room.first_bot})")

    def do_reset_room(self, *, room: str, **_):
        reset = room_reset(room_id=room)
        self.stdout.write(f"Room {room} {'reset' if reset else 'was not bound'}.")

    def do_editor(self, *, username: str, bot: str, remove: bool, **_):
        if remove:
            done = editor_remove(username=username, bot=bot)
            self.stdout.write(f"{username} {'no longer edits' if done else 'did not edit'} {bot}.")
        else:
            done = editor_add(username=username, bot=bot)
            self.stdout.write(
                f"{username} {'may now edit' if done else 'could already edit'} {bot}."
            )
