"""Who may see a feed event: the one check behind the change feed and the webhooks, built on
the read rules every other read uses (`memstore.rooms.access`: the scopes a room reads, the
visibilities it sees, what its reads withhold) and nothing of its own.

A bot in a room sees the events of the scopes that room reads (`readable_scopes`: a group room
never sees user memory, a bot never another bot's own memory). A webhook endpoint's audience
is a bot in a routine room with every project it joined (`readable_scope` per event: so never
user memory, never private facts), or a project's member bots reading only that project.
An event whose line is hidden, private outside a direct room, or withheld (a paused person, an
excluded topic, a flagged line) is not shown; an erased event shows no text at all.
"""

from dataclasses import dataclass

from memstore.errors import InvalidFact, NotAllowed
from memstore.facts import markdown
from memstore.facts.paths import Scope, locate
from memstore.facts.records import StoredFact, stored_of_line
from memstore.models import ChangeEvent
from memstore.registry.bots import bot_get
from memstore.rooms.access import (
    Context,
    Room,
    readable_scope,
    readable_scopes,
    visible,
    withholding_of,
)
from memstore.rules.withheld import Withholding, withholding_for

WEBHOOK_ROOM = "webhook"  # the routine room a bot's endpoint reads as


@dataclass(frozen=True, slots=True)
class Audience:
    """Who reads: the scopes (`scopes`, or per scope `ctx`'s rule), the visibilities they see
    and what their reads withhold."""

    scopes: frozenset[Scope]
    seen: frozenset[str]
    withholding: Withholding
    ctx: Context | None = None  # a bot's endpoint: any scope `readable_scope` allows it

    def reads(self, scope: Scope) -> bool:
        """Whether this audience reads the scope at all."""
        if scope in self.scopes:
            return True
        if self.ctx is None:
            return False
        try:
            return readable_scope(self.ctx, scope.kind, scope.name) == scope
        except (NotAllowed, InvalidFact):
            return False

    def sees(self, event: ChangeEvent) -> bool:
        """Whether the event reaches this audience (its scope, then its line)."""
        if not self.reads(Scope.parse(event.scope_key)):
            return False
        if markdown.parse_line(event.line) is None:  # erased (a tombstone): no text to show
            return True
        stored = stored_of_event(event)
        if stored is None:  # a line in no memory file: nothing says who may read it
            return False
        return stored.visibility in self.seen and self.withholding.reason(stored) is None


def stored_of_event(event: ChangeEvent) -> StoredFact | None:
    """The event's fact line as a StoredFact (None when it holds no fact line: erased)."""
    fact = markdown.parse_line(event.line)
    if fact is None or locate(event.file) is None:
        return None
    return stored_of_line(event.file, fact)


def audience_of_context(ctx: Context) -> Audience:
    """What a bot in a room reads: the same rules as every read of that room."""
    return Audience(
        scopes=frozenset(readable_scopes(ctx)), seen=visible(ctx), withholding=withholding_of(ctx)
    )


def audience_of_bot(bot: str) -> Audience:
    """A bot's webhook endpoint: the bot in a routine room with every project it joined."""
    info = bot_get(slug=bot)
    ctx = Context(
        bot=bot,
        room=Room(id=WEBHOOK_ROOM, kind="routine"),
        joined=frozenset(info.projects),
        app=info.app,
        private_memory=info.private_memory,
    )
    return Audience(scopes=frozenset(), seen=visible(ctx), withholding=withholding_of(ctx), ctx=ctx)


def audience_of_project(project: str) -> Audience:
    """A project's webhook endpoint: that project's memory, as a routine room sees it."""
    # `visible` asks only the room's kind: the context's bot is a stand-in.
    routine = Context(bot=project, room=Room(id=WEBHOOK_ROOM, kind="routine"))
    return Audience(
        scopes=frozenset({Scope("project", project)}),
        seen=visible(routine),
        withholding=withholding_for(person=None),
    )
