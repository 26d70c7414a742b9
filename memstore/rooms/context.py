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
from memstore.models import Bot, ProjectMember, RoomBinding
from memstore.registry.bots import bot_mark_in_groups
from memstore.registry.generation import GenerationCache
from memstore.registry.grants import READ_WRITE
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
    traits: tuple[bool, bool] | None = None,
    private: bool | None = None,
    read_only: Iterable[str] | None = None,
    acting: str | None = None,
) -> Context:
    """The Context of one bot call, checked in this order: the room ticket (when the deployment
    wants one), the person (registered and linked to the bot; used under their canonical name),
    the room's names and projects, then the room's binding (fixed by its first answered call).
    Raises TicketRefused, PersonUnknown, PersonNotLinked, InvalidName, NotAllowed or
    RoomConflict, and then nothing was created (the refusal is recorded in the failure log, op
    "call"). `joined`: the bot's projects, if the caller has them already
    (memstore.registry.tokens.Caller), with `read_only` those it may only read; `generation`: the authorization generation the caller's
    token was checked at (the same Caller), so the person link and the room binding this process
    read at it are trusted without a query (`memstore.registry.generation`); `traits` the
    bot's (app, private_memory) from the same Caller; `private`: the call says the group room
    is a private conversation, False that it is a shared one, None says nothing (bound by its
    first answered call; a later claim contradicting the binding, either way, is a
    RoomConflict); `acting`: the person acting through the bot (an OAuth connection's), named
    on what the call saves. Call `call_succeeded` once the call was answered."""
    projects = list(projects)
    ticket_check(
        ticket=ticket,
        bot=bot,
        room_id=room_id,
        kind=room_kind,
        person=person or "",
        projects=projects,
        private=bool(private),
    )
    canonical = person_for_bot(bot=bot, person=person, generation=generation) if person else None
    ctx = context_open(
        bot=bot,
        room_id=room_id,
        room_kind=room_kind,
        person=canonical,
        projects=projects,
        joined=joined,
        traits=traits,
        private=bool(private),
        read_only=read_only,
    )
    bound = room_check(
        room_id=ctx.room.id,
        kind=ctx.room.kind,
        person=ctx.person,
        generation=generation,
        private=private,
    )
    return replace(ctx, room_bound=bool(bound), generation=generation, acting=acting or None)


# Bots this process marked "in groups", at the authorization generation of the call that did:
# a bot deleted and made again (which moves the generation) is marked again.
_IN_GROUPS: GenerationCache[bool] = GenerationCache()


def call_succeeded(*, ctx: Context) -> None:
    """A call in this context was answered: the room is bound to its kind (and person) if this
    is its first answered call, and a bot seen in a group room is now "in groups" (its prompt
    calls its memory team-wide), written once per process and generation rather than on every
    group call (the flag is never unset). Never called for a refused call.

    Two first calls naming one room differently at the same moment can both pass the check;
    the first answered binds the room and the other, already answered, is left unbound by it
    (every later call is judged against the binding)."""
    if not ctx.room_bound:
        with suppress(RoomConflict):
            room_bind(
                room_id=ctx.room.id,
                kind=ctx.room.kind,
                person=ctx.person,
                bot=ctx.bot,
                private=ctx.room_private,
            )
    if ctx.room.kind == "group" and not _IN_GROUPS.get(ctx.bot, ctx.generation):
        bot_mark_in_groups(bot=ctx.bot)
        _IN_GROUPS.put(ctx.bot, ctx.generation, True)


def context_open(
    *,
    bot: str,
    room_id: str,
    room_kind: str,
    person: str | None = None,
    projects: Iterable[str] = (),
    joined: Iterable[str] | None = None,
    traits: tuple[bool, bool] | None = None,
    private: bool = False,
    read_only: Iterable[str] | None = None,
) -> Context:
    """The one way a `Context` is made: a bot in a room, its joined projects and its traits
    (app, private memory) read from the registry (or passed in by a caller that read them
    already, as the API does with the bot's token), whether it holds a shard of the room's
    legacy memory, and for a group room whether it is a private conversation (as bound, else as
    `private` claims) and whether this bot opened it, and which joined projects it may only
    read (`read_only`, from the registry when not passed). It checks
    names and projects (`Context` does), not who is calling: a bot's call goes through
    `call_context`."""
    check_slug(bot)
    if joined is None or read_only is None:
        members = list(ProjectMember.objects.filter(bot__slug=bot).values_list("project", "access"))
        joined = [project for project, _ in members] if joined is None else joined
        read_only = [project for project, access in members if access != READ_WRITE]
    joined = frozenset(joined)
    if traits is None:
        found = Bot.objects.filter(slug=bot).values_list("app", "private_memory").first()
        traits = found or (False, False)
    app, private_memory = traits
    room = Room(id=room_id, kind=room_kind)  # type: ignore[arg-type]
    own_room, room_private = False, private  # a private claim outside a group room is refused
    if room.kind == "group":
        bound = RoomBinding.objects.filter(room_id=room.id).values_list("private", "first_bot")
        found = bound.first()
        # Unbound, the room becomes what this call says, and this bot's (a call binds it).
        room_private = found[0] if found else private
        own_room = found is None or found[1] == bot
    return Context(
        bot=bot,
        room=room,
        person=person,
        projects=tuple(dict.fromkeys(projects)),
        joined=joined,
        read_only=frozenset(read_only) & joined,
        room_shard=room.kind == "group" and _holds_room_shard(bot, room.id),
        app=bool(app),
        private_memory=bool(private_memory),
        own_room=bool(private_memory and own_room),
        room_private=bool(room_private),
    )


def _holds_room_shard(bot: str, room_id: str) -> bool:
    # Legacy room memory is read only by the bots that wrote in it (one stat).
    return (memory_root() / Scope("room", room_id).shard(bot).rel).is_dir()
