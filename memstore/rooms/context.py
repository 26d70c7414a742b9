"""Opening a bot's call: the one place a `Context` is made, and the checks a call passes first.

`call_context` is every front door's way in (API, MCP): the room ticket, the person, the room's
names and projects, then the room's binding (checked, not made); `call_succeeded` is its way
out once the call was answered: it binds the room, so a refused call binds nothing.
`context_open` builds the `Context` itself, for callers that act for a bot without a live call
(the learner replaying a stored exchange, the console's previews, imports, the demo).
"""

from collections.abc import Iterable
from contextlib import suppress
from dataclasses import replace

from memstore.errors import RoomConflict
from memstore.facts.paths import Scope, check_slug, memory_root
from memstore.models import ProjectMember
from memstore.registry.bots import bot_mark_in_groups
from memstore.registry.people import person_for_bot
from memstore.rooms.access import Context, Room
from memstore.rooms.tickets import room_bind, room_check, ticket_check
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
    generation: int | None = None,
) -> Context:
    """The Context of one bot call, checked in this order: the room ticket (when the deployment
    wants one), the person (registered and linked to the bot; used under their canonical name),
    the room's names and projects, then the room's binding (fixed by its first answered call).
    Raises TicketRefused, PersonUnknown, PersonNotLinked, InvalidName, NotAllowed or
    RoomConflict, and then nothing was created (the refusal is recorded in the failure log, op
    "call"). `joined`: the bot's projects, if the caller has them already
    (memstore.registry.tokens.Caller); `generation`: the authorization generation the caller's
    token was checked at (the same Caller), so the person link and the room binding this process
    read at it are trusted without a query (`memstore.registry.generation`). Call
    `call_succeeded` once the call was answered."""
    projects = list(projects)
    ticket_check(
        ticket=ticket,
        bot=bot,
        room_id=room_id,
        kind=room_kind,
        person=person or "",
        projects=projects,
    )
    canonical = person_for_bot(bot=bot, person=person, generation=generation) if person else None
    ctx = context_open(
        bot=bot,
        room_id=room_id,
        room_kind=room_kind,
        person=canonical,
        projects=projects,
        joined=joined,
    )
    bound = room_check(
        room_id=ctx.room.id, kind=ctx.room.kind, person=ctx.person, generation=generation
    )
    return replace(ctx, room_bound=True) if bound else ctx


def call_succeeded(*, ctx: Context) -> None:
    """A call in this context was answered: the room is bound to its kind (and person) if this
    is its first answered call, and a bot seen in a group room is now "in groups" (its prompt
    calls its memory team-wide). Never called for a refused call.

    Two first calls naming one room differently at the same moment can both pass the check;
    the first answered binds the room and the other, already answered, is left unbound by it
    (every later call is judged against the binding)."""
    if not ctx.room_bound:
        with suppress(RoomConflict):
            room_bind(room_id=ctx.room.id, kind=ctx.room.kind, person=ctx.person, bot=ctx.bot)
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
