"""The console's people page (staff only): register people, link them to bots, make console
accounts editors of a bot, and reset a room's binding.

Every function checks the viewer is staff (NotAllowed otherwise) and calls `memstore.registry.people` or
`memstore.rooms`; nothing here decides who a bot may act for.
"""

from dataclasses import dataclass

from memstore.console.viewer import Viewer
from memstore.errors import NotAllowed
from memstore.registry.bots import bots_registered
from memstore.registry.people import (
    PersonInfo,
    bot_editors,
    editor_add,
    editor_remove,
    people_list,
    person_add,
    person_link,
    person_unlink,
)
from memstore.rooms.tickets import Binding, room_reset, rooms_bound

# The changes the people page makes (its form's choices derive from this).
PEOPLE_ACTIONS = ("add", "link", "unlink", "editor", "not-editor", "reset-room")


@dataclass(frozen=True, slots=True)
class BotEditors:
    """A registered bot and the console accounts that may edit it."""

    bot: str
    editors: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PeopleOverview:
    """What the people page lists."""

    people: list[PersonInfo]
    bots: list[BotEditors]
    rooms: list[Binding]


def people_overview(*, viewer: Viewer) -> PeopleOverview:
    """People with their bots, bots with their editors, and bound rooms (staff only)."""
    _staff(viewer)
    bots = [BotEditors(b.slug, tuple(bot_editors(bot=b.slug))) for b in bots_registered()]
    return PeopleOverview(people=people_list(), bots=bots, rooms=rooms_bound())


def console_people_change(
    *, viewer: Viewer, action: str, person: str, bot: str, user: str, room: str
) -> str:
    """Apply one change from the people page (staff only); a sentence saying what happened."""
    _staff(viewer)
    if action == "add":
        info = person_add(name=person, username=user or None)
        return f"Registered {info.name}."
    if action == "link":
        done = person_link(person=person, bot=bot)
        return f"{bot} {'may now act' if done else 'could already act'} for {person}."
    if action == "unlink":
        done = person_unlink(person=person, bot=bot)
        return f"{bot} {'no longer acts' if done else 'was not linked'} for {person}."
    if action == "editor":
        done = editor_add(username=user, bot=bot)
        return f"{user} {'may now edit' if done else 'could already edit'} {bot}."
    if action == "not-editor":
        done = editor_remove(username=user, bot=bot)
        return f"{user} {'no longer edits' if done else 'did not edit'} {bot}."
    if action == "reset-room":
        done = room_reset(room_id=room)
        return (
            f"Room {room} {'reset: the next call naming it binds it' if done else 'was not bound'}."
        )
    raise NotAllowed(f"Unknown change {action!r}.")


def _staff(viewer: Viewer) -> None:
    if not viewer.staff:
        raise NotAllowed("Only staff manage people, links, editors and rooms.")
