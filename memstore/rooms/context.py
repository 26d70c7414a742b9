"""Opening a bot's call: the one place a `Context` is made, and the checks a call passes first.

`call_context` is every front door's way in (API, MCP): the room ticket, the person, the room's
names and projects, then the room's binding. `context_open` builds the `Context` itself, for
callers that act for a bot without a live call (the learner replaying a stored exchange, the
console's previews, imports, the demo).
"""

from collections.abc import Iterable

from memstore.facts.paths import Scope, check_slug, memory_root
from memstore.models import ProjectMember
from memstore.registry.bots import bot_mark_in_groups
from memstore.registry.people import person_for_bot
from memstore.rooms.access import Context, Room
from memstore.rooms.tickets import room_bind, ticket_check
from memstore.rules.failures import refusals_recorded


@refusals_recorded("call")
def call_context(
    *,
    bot: str,
    room_id: str,
    room_kind: str,
    person: str | None = None,
    projects: Iterable[str] = (),
    joined: Iterable[str] | None = None,
    ticket: str | None = None,
) -> Context:
    """The Context of one bot call, checked in this order: the room ticket (when the deployment
    wants one), the person (registered and linked to the bot; used under their canonical name),
    the room's names and projects, then the room's binding (fixed by its first call). Raises
    TicketRefused, PersonUnknown, PersonNotLinked, InvalidName, NotAllowed or RoomConflict, and
    then nothing was created (the refusal is recorded in the failure log, op "call"). `joined`: the bot's projects, if the caller has them already
    (memstore.registry.tokens.Caller). Mark a group room's bot with `call_succeeded` once the call is."""
    projects = list(projects)
    ticket_check(
        ticket=ticket,
        bot=bot,
        room_id=room_id,
        kind=room_kind,
        person=person or "",
        projects=projects,
    )
    canonical = person_for_bot(bot=bot, person=person) if person else None
    ctx = context_open(
        bot=bot,
        room_id=room_id,
        room_kind=room_kind,
        person=canonical,
        projects=projects,
        joined=joined,
    )
    room_bind(room_id=ctx.room.id, kind=ctx.room.kind, person=ctx.person, bot=bot)
    return ctx


def call_succeeded(*, ctx: Context) -> None:
    """A call in this context was answered: a bot seen in a group room is now "in groups" (its
    prompt calls its memory team-wide). Never called for a refused call."""
    if ctx.room.kind == "group":
        bot_mark_in_groups(bot=ctx.bot)


def context_open(
    *,
    bot: str,
    room_id: str,
    room_kind: str,
    person: str | None = None,
    projects: Iterable[str] = (),
    joined: Iterable[str] | None = None,
) -> Context:
    """The one way a `Context` is made: a bot in a room, its joined projects read from the
    registry (or passed in by a caller that read them already, as the API does with the bot's
    token), and whether it holds a shard of the room's legacy memory. It checks names and
    projects (`Context` does), not who is calling: a bot's call goes through `call_context`."""
    check_slug(bot)
    if joined is None:
        joined = ProjectMember.objects.filter(bot__slug=bot).values_list("project", flat=True)
    joined = frozenset(joined)
    room = Room(id=room_id, kind=room_kind)  # type: ignore[arg-type]
    return Context(
        bot=bot,
        room=room,
        person=person,
        projects=tuple(dict.fromkeys(projects)),
        joined=joined,
        room_shard=room.kind == "group" and _holds_room_shard(bot, room.id),
    )


def _holds_room_shard(bot: str, room_id: str) -> bool:
    # Legacy room memory is read only by the bots that wrote in it (one stat).
    return (memory_root() / Scope("room", room_id).shard(bot).rel).is_dir()
