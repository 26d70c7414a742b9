"""Who may read and write what (SPEC §6), decided by the server from the room a call is made in.

A `Context` is what a bot says about where it is talking: the room (id and kind), the person in
a direct room, and the projects in play. These functions turn it into the scopes it may read and
the shard it may write, or raise `NotAllowed` with a message saying why. They never trust the
caller's say-so about scopes.
"""

from dataclasses import dataclass, field

from memstore.errors import InvalidFact, InvalidName, NotAllowed
from memstore.facts.paths import Scope, ScopeKind, Shard, check_person, check_room, check_slug
from memstore.rules.withheld import Withholding, withholding_for
from memstore.vocabulary import PRIVATE_ROOM_KINDS, ROOM_KINDS, VISIBILITIES, RoomKind

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

    `joined` is every project the bot has joined (from the registry, not from the caller);
    `room_shard` says whether the bot holds a shard of this room's legacy memory (from disk):
    only such bots read it; `room_bound`: the room's binding was there when the call opened
    (`memstore.rooms.context`: an answered call binds an unbound room)."""

    bot: str
    room: Room
    person: str | None = None
    projects: tuple[str, ...] = ()
    joined: frozenset[str] = field(default_factory=frozenset)
    room_shard: bool = False
    room_bound: bool = False

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

    @property
    def user_memory_allowed(self) -> bool:
        """User memory is read and written in direct rooms only."""
        return self.room.kind == "direct"


def readable_scopes(ctx: Context) -> list[Scope]:
    """Every scope this context may read, own memory first."""
    scopes = [Scope("bot", ctx.bot)]
    scopes += [Scope("project", p) for p in ctx.projects]
    if ctx.user_memory_allowed:
        scopes.append(Scope("user", ctx.person))
    if ctx.room.kind == "group" and ctx.room_shard:
        scopes.append(Scope("room", ctx.room.id))
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
        if not ctx.room_shard:
            raise NotAllowed(
                f"Legacy memory of room {ctx.room.id!r} is read only by bots that wrote in it."
            )
        return Scope("room", ctx.room.id)
    return _own_scope(ctx, kind, name)


def writable_shard(ctx: Context, kind: ScopeKind, name: str | None = None) -> Shard:
    """The shard this context writes for a scope kind (and project name), or the error of
    `readable_scope`; legacy room memory is never written."""
    if kind == "room":
        raise NotAllowed("Legacy room memory is read-only.")
    return _own_scope(ctx, kind, name).shard(ctx.bot)


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
    rooms), joined projects, and this bot's copies in legacy rooms."""
    shards = [Scope("bot", ctx.bot).shard(ctx.bot)]
    if ctx.user_memory_allowed:
        shards.append(Scope("user", ctx.person).shard(ctx.bot))
    shards += [Scope("project", p).shard(ctx.bot) for p in sorted(ctx.joined)]
    shards += [Scope("room", r).shard(ctx.bot) for r in legacy_rooms]
    return shards


def visible(ctx: Context, *, hidden: bool = False) -> frozenset[str]:
    """The visibilities of the facts this context may see (SPEC §11): everything but hidden
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
    return withholding_for(person=ctx.person if ctx.room.kind == "direct" else None)
