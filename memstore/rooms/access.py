"""Who may read and write what, decided by the server from the room a call is made in.

A `Context` is what a bot says about where it is talking: the room (id and kind), the person in
a direct room, and the projects in play. These functions turn it into the scopes it may read and
the shard it may write, or raise `NotAllowed` with a message saying why. They never trust the
caller's say-so about scopes.
"""

from dataclasses import dataclass, field

from memstore.errors import InvalidFact, InvalidName, NotAllowed
from memstore.facts.paths import Scope, ScopeKind, Shard, check_person, check_room, check_slug
from memstore.invocation import manage_command
from memstore.registry.grants import membership_check
from memstore.rules.withheld import Withholding, withholding_for
from memstore.vocabulary import (
    PRIVATE_ROOM_KINDS,
    ROOM_KINDS,
    SERVER_SCOPE_NAME,
    VISIBILITIES,
    RoomKind,
)

__all__ = ["ROOM_KINDS", "RoomKind"]
MAX_PROJECTS = 3


@dataclass(frozen=True, slots=True)
class Room:
    """A conversation: its id and kind."""

    id: str
    kind: RoomKind

    def __post_init__(self) -> None:
        check_room(self.id)
        if self.kind not in ROOM_KINDS:
            raise InvalidName(
                f"Room kind must be one of {', '.join(ROOM_KINDS)}, not {self.kind!r}."
            )


@dataclass(frozen=True, slots=True)
class Context:
    """A bot acting in a room: with the person (direct rooms) and the projects in play.

    `joined` is every project the bot has joined (from the registry, not from the caller),
    `read_only` those of them it may read but not write (its membership is `read`);
    `room_shard` says whether the bot holds a shard of this room's legacy memory (from disk):
    only such bots read it; `room_bound`: the room's binding was there when the call opened
    (`memstore.rooms.context`: an answered call binds an unbound room). From the bot's
    registry row: `app` (its token writes workspace memory) and `private_memory` (its own memory
    is read only in its own rooms); `own_room`: this bot opened the room (its binding's first
    call was this bot's); `room_private`: a private group conversation (not a group DM, which
    is a shared working space): what is saved there by default belongs to the conversation,
    read only there, by the bots that talk in it."""

    bot: str
    room: Room
    person: str | None = None
    projects: tuple[str, ...] = ()
    joined: frozenset[str] = field(default_factory=frozenset)
    read_only: frozenset[str] = field(default_factory=frozenset)
    room_shard: bool = False
    room_bound: bool = False
    app: bool = False
    private_memory: bool = False
    own_room: bool = False
    room_private: bool = False  # a private group conversation: its memory belongs to it
    # The person acting through the bot on this call (the one who made its OAuth connection):
    # what the call saves names them (`for=`). None: the bot acts on its own.
    acting: str | None = field(default=None, compare=False)
    # The authorization generation the call was checked at (`memstore.registry.generation`;
    # None: not known): what the process remembered at it holds for this call.
    generation: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        check_slug(self.bot)
        if self.person is not None:
            check_person(self.person)
        if self.room.kind == "direct" and not self.person:
            raise NotAllowed("A direct room needs the person the bot is talking with.")
        for project in self.projects:
            check_slug(project, "project")
            if project not in self.joined:
                raise NotAllowed(f"Bot {self.bot!r} has not joined project {project!r}.")
        if len(self.projects) > MAX_PROJECTS:
            raise NotAllowed(f"At most {MAX_PROJECTS} projects can be in play in one room.")
        if self.room_private and self.room.kind != "group":
            raise NotAllowed(
                f"Only a group room can be a private conversation, not a {self.room.kind} "
                "room (a direct room is private to its person already)."
            )

    @property
    def user_memory_allowed(self) -> bool:
        """User memory is read and written in direct rooms only."""
        return self.room.kind == "direct"

    @property
    def reads_for(self) -> str | None:
        """The person whose memory this room reads for: a direct room's person, else nobody
        (a group or routine room never reads one person's user memory or private facts)."""
        return self.person if self.room.kind == "direct" else None

    @property
    def own_memory_read(self) -> bool:
        """Whether the bot's own memory is read here: always, unless the bot keeps a private
        memory and this is a group room it did not open (a private agent's memory
        never reaches a group room unless the room is its own)."""
        return not self.private_memory or self.room.kind != "group" or self.own_room


WORKSPACE = Scope("server", SERVER_SCOPE_NAME)


def readable_scopes(ctx: Context) -> list[Scope]:
    """Every scope this context may read, own memory first (when it is read here), then the
    projects, the person's, this group room's legacy memory, and the workspace's."""
    scopes = [Scope("bot", ctx.bot)] if ctx.own_memory_read else []
    scopes += [Scope("project", p) for p in ctx.projects]
    if ctx.user_memory_allowed:
        scopes.append(Scope("user", ctx.person))
    if ctx.room.kind == "group" and (ctx.room_shard or ctx.room_private):
        scopes.append(Scope("room", ctx.room.id))
    scopes.append(WORKSPACE)
    return scopes


def readable_scope(ctx: Context, kind: ScopeKind, name: str | None = None) -> Scope:
    """One scope this context may read, or NotAllowed (InvalidFact for a bad request) saying
    why; the same conditions as `writable_shard`, bar legacy rooms (read-only)."""
    if kind == "room":
        if ctx.room.kind != "group":
            raise NotAllowed(
                "Legacy room memory is read only in its own group room, and this is a "
                f"{ctx.room.kind} room."
            )
        if not ctx.room_shard and not ctx.room_private:
            raise NotAllowed(
                f"Legacy memory of room {ctx.room.id!r} is read only by bots that wrote in it."
            )
        return Scope("room", ctx.room.id)
    if kind == "server":
        return WORKSPACE
    if kind == "bot" and not ctx.own_memory_read:
        raise NotAllowed(
            f"Bot {ctx.bot!r} keeps a private memory: it is read only in its own rooms, not in "
            f"group room {ctx.room.id!r}."
        )
    return _own_scope(ctx, kind, name)


def writable_shard(ctx: Context, kind: ScopeKind, name: str | None = None) -> Shard:
    """The shard this context writes for a scope kind (and project name), or the error of
    `readable_scope`; legacy room memory is never written, nor a project the bot may only read
    (MissingGrant naming the project)."""
    if kind == "room" or (kind == "bot" and ctx.room_private):
        # In a private conversation a save belongs to it unless another scope is asked for.
        if ctx.room_private:
            return Scope("room", ctx.room.id).shard(ctx.bot)
        raise NotAllowed(
            "Room memory is written only in a private conversation (X-Room-Private: true); "
            "legacy room memory is read-only."
        )
    if kind == "server":
        if not ctx.app:
            raise NotAllowed(
                "Only an app's token writes workspace memory (scope server): register the app "
                f"with `{manage_command('bots', 'create', 'SLUG', '--app')}`."
            )
        return WORKSPACE.shard(ctx.bot)
    scope = _own_scope(ctx, kind, name)
    if scope.kind == "project":
        membership_check(bot=ctx.bot, project=scope.name, read_only=ctx.read_only)
    return scope.shard(ctx.bot)


def _own_scope(ctx: Context, kind: ScopeKind, name: str | None) -> Scope:
    if kind == "bot":
        return Scope("bot", ctx.bot)
    if kind == "user":
        if not ctx.user_memory_allowed:
            raise NotAllowed(
                f"User memory can't be used in a {ctx.room.kind} room: what is known about a "
                "person stays in their direct rooms."
            )
        return Scope("user", ctx.person)  # type: ignore[arg-type]
    if kind == "project":
        if not name:
            raise InvalidFact("Name the project.")
        if name not in ctx.joined:
            raise NotAllowed(f"Bot {ctx.bot!r} has not joined project {name!r}.")
        return Scope("project", name)
    raise InvalidFact(f"Unknown scope {kind!r}.")


def forget_shards(ctx: Context, legacy_rooms: list[str]) -> list[Shard]:
    """Every shard a forget in this context may change: own memory, the person's shard (direct
    rooms), joined projects it may write, this bot's copies in legacy rooms, and an app's
    workspace shard."""
    shards = [Scope("bot", ctx.bot).shard(ctx.bot)]
    if ctx.user_memory_allowed:
        shards.append(Scope("user", ctx.person).shard(ctx.bot))
    shards += [Scope("project", p).shard(ctx.bot) for p in sorted(ctx.joined - ctx.read_only)]
    shards += [Scope("room", r).shard(ctx.bot) for r in legacy_rooms]
    if ctx.room_private and ctx.room.id not in legacy_rooms:
        shards.append(Scope("room", ctx.room.id).shard(ctx.bot))
    if ctx.app:
        shards.append(WORKSPACE.shard(ctx.bot))
    return shards


def visible(ctx: Context, *, hidden: bool = False) -> frozenset[str]:
    """The visibilities of the facts this context may see: everything but hidden
    facts, and private facts only in the rooms they are for (direct rooms). `hidden`: a person
    looking in the console, who sees every fact."""
    if hidden:
        return frozenset(VISIBILITIES)
    seen = {"context", "searchable"}
    if ctx.room.kind in PRIVATE_ROOM_KINDS:
        seen.add("private")
    return frozenset(seen)


def withholding_of(ctx: Context) -> Withholding:
    """What this context's reads withhold (`memstore.rules.withheld`): the person in a direct
    room's controls, and everyone's excluded topics."""
    return withholding_for(person=ctx.reads_for)
