"""The people registry: who bots may talk with, which bots may act for whom, and which console
accounts may edit a bot's memory.

A person has one canonical spelling: `Sam` and `sam` are the same person, stored and used as
first registered, so user-memory folders never fork. People are created by staff (console), by
`manage.py people`, or by `people_import`; a call never creates one. Where calls are checked
(ticket, person, link, room) is `memstore.rooms`.
"""

from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.postgres.aggregates import ArrayAgg
from django.contrib.postgres.expressions import ArraySubquery
from django.db import IntegrityError, transaction
from django.db.models import Value

from memstore.errors import InvalidName, PersonNotLinked, PersonUnknown, UnknownBot
from memstore.facts.paths import Scope, all_scopes, check_person, check_slug, memory_root
from memstore.invocation import manage_command
from memstore.models import Bot, BotEditor, MemoryFile, Person, PersonLink, RoomBinding
from memstore.registry.bots import bot_row
from memstore.registry.generation import GenerationCache
from memstore.registry.oauth import grants_end_unlinked


@dataclass(frozen=True, slots=True)
class PersonInfo:
    """A registered person: their canonical name, console account (if any) and linked bots."""

    name: str
    username: str
    bots: tuple[str, ...]


def person_add(*, name: str, username: str | None = None, exist_ok: bool = False) -> PersonInfo:
    """Register a person (InvalidName if the name is not allowed, or taken in any case unless
    `exist_ok`); `username` ties them to that console account."""
    check_person(name)
    user = _user(username) if username else None
    existing = Person.objects.filter(name__iexact=name).first()
    if existing is not None:
        if not exist_ok:
            raise InvalidName(f"Person {existing.name!r} is already registered.")
        if user is not None and existing.user_id is None:
            existing.user = user
            existing.save(update_fields=["user"])
        return person_get(name=existing.name)
    try:
        with transaction.atomic():
            Person.objects.create(name=name, user=user)
    except IntegrityError:
        if not exist_ok:
            raise InvalidName(f"Person {name!r} is already registered.") from None
    return person_get(name=name)


def person_canonical(*, name: str) -> str:
    """The registered spelling of a person's name, whatever the case (PersonUnknown if none)."""
    check_person(name)
    found = Person.objects.filter(name__iexact=name).values_list("name", flat=True).first()
    if found is None:
        raise PersonUnknown(
            f"No person {name!r} is registered; staff add people in the console or with "
            f"`{manage_command('people', 'add', name)}`."
        )
    return found


def person_get(*, name: str) -> PersonInfo:
    """One registered person (PersonUnknown if none), found whatever the case."""
    infos = _infos(Person.objects.filter(name__iexact=check_person(name)))
    if not infos:
        person_canonical(name=name)  # raises PersonUnknown
    return infos[0]


def people_list() -> list[PersonInfo]:
    """Every registered person, by name."""
    return _infos(Person.objects.all())


def console_account(*, username: str) -> tuple[str, frozenset[str], frozenset[str]]:
    """For a console account, in one query: the person name it reads its own user memory under
    (the registered person tied to it, else the username), the bots it is an editor of, and
    the rooms bound as private conversations (whose memory only staff see in the console)."""
    private = RoomBinding.objects.filter(private=True).values("room_id")
    row = (
        get_user_model()
        .objects.filter(username=username)
        .annotate(
            edits=ArrayAgg("bot_edits__bot", distinct=True, default=Value([])),
            private_rooms=ArraySubquery(private),
        )
        .values_list("person__name", "edits", "private_rooms")
        .first()
    )
    if row is None:
        return username, frozenset(), frozenset(private.values_list("room_id", flat=True))
    person, edits, rooms = row
    return person or username, frozenset(e for e in edits if e), frozenset(rooms)


def person_link(*, person: str, bot: str) -> bool:
    """Let a bot act for a person; False if it already could."""
    row = Person.objects.get(name=person_canonical(name=person))
    _, created = PersonLink.objects.get_or_create(person=row, bot=bot_row(slug=bot))
    return created


def person_unlink(*, person: str, bot: str) -> bool:
    """Stop a bot acting for a person (what it wrote about them stays; the MCP connections made
    as them for that bot end); False if not linked."""
    name = person_canonical(name=person)
    deleted, _ = PersonLink.objects.filter(person__name=name, bot=bot_row(slug=bot)).delete()
    grants_end_unlinked(person=name, bot=bot)
    return bool(deleted)


def person_bots(*, person: str) -> list[str]:
    """The bots that may act for this person ("bots that know me"), by slug."""
    name = person_canonical(name=person)
    links = PersonLink.objects.filter(person__name=name).order_by("bot__slug")
    return list(links.values_list("bot__slug", flat=True))


def bot_people(*, bot: str) -> list[str]:
    """The people a bot may act for, by name."""
    links = PersonLink.objects.filter(bot=bot_row(slug=bot)).order_by("person__name")
    return list(links.values_list("person__name", flat=True))


def person_for_bot(*, bot: str, person: str, generation: int | None = None) -> str:
    """The canonical name of a person this bot may act for: PersonUnknown if nobody has that
    name, PersonNotLinked if the bot is not linked to them (one query when linked). With the
    call's authorization `generation` (`memstore.registry.generation`), a link this process
    found at that generation is trusted without a query; refusals are never remembered."""
    check_person(person)
    key = (bot, person)  # as sent: Postgres's case rules, not Python's, decide who it is
    if (known := _links.get(key, generation)) is not None:
        return known
    link = PersonLink.objects.filter(bot__slug=bot, person__name__iexact=person)
    found = link.values_list("person__name", flat=True).first()
    if found is not None:
        _links.put(key, generation, found)
        return found
    name = person_canonical(name=person)
    raise PersonNotLinked(
        f"Bot {bot!r} is not linked to {name}: staff link them in the console or with "
        f"`{manage_command('people', 'link', name, bot)}`."
    )


_links: GenerationCache[str] = GenerationCache()  # (bot, person as sent) -> canonical name


def people_import(*, root: Path) -> tuple[list[str], list[str]]:
    """Register everyone who has a user-memory folder or a console account (the spelling on
    disk wins for folders). Returns (added, skipped: names that differ from a registered
    person only by case, whose folders need merging by hand)."""
    added: list[str] = []
    skipped: list[str] = []
    folders = [s.name for s in all_scopes(root) if s.kind == "user"]
    accounts = list(get_user_model().objects.values_list("username", flat=True))
    for name in folders + accounts:
        try:
            check_person(name)
        except InvalidName:
            skipped.append(name)
            continue
        existing = Person.objects.filter(name__iexact=name).values_list("name", flat=True).first()
        if existing is None:
            person_add(name=name, username=name if name in accounts else None)
            added.append(name)
        elif existing != name and name in folders:
            skipped.append(name)
    return added, skipped


def editor_add(*, username: str, bot: str) -> bool:
    """Let a (non-staff) console account edit, delete, restore and clear a bot; False if it
    already could."""
    if not _bot_known(bot):
        raise UnknownBot(f"No bot {bot!r}: it is neither registered nor has memory on disk.")
    _, created = BotEditor.objects.get_or_create(user=_user(username), bot=bot)
    return created


def editor_remove(*, username: str, bot: str) -> bool:
    """Take a console account off a bot's editors; False if it was not one."""
    deleted, _ = BotEditor.objects.filter(user=_user(username), bot=check_slug(bot)).delete()
    return bool(deleted)


def bot_editors(*, bot: str) -> list[str]:
    """Usernames of a bot's editors."""
    rows = BotEditor.objects.filter(bot=bot).order_by("user__username")
    return list(rows.values_list("user__username", flat=True))


def _bot_known(bot: str) -> bool:
    """Whether a bot is registered or has memory on disk (own or in a shared scope)."""
    check_slug(bot)
    return (
        Bot.objects.filter(slug=bot).exists()
        or (memory_root() / Scope("bot", bot).rel).is_dir()
        or MemoryFile.objects.filter(shard_bot=bot).exists()
    )


def _user(username: str):
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise InvalidName(f"No console account {username!r}.")
    return user


def _infos(rows) -> list[PersonInfo]:
    rows = list(rows.select_related("user").order_by("name"))
    bots: dict[int, list[str]] = {}
    for person_id, slug in PersonLink.objects.filter(person__in=rows).values_list(
        "person_id", "bot__slug"
    ):
        bots.setdefault(person_id, []).append(slug)
    return [
        PersonInfo(
            name=row.name,
            username=row.user.username if row.user else "",
            bots=tuple(sorted(bots.get(row.pk, []))),
        )
        for row in rows
    ]
