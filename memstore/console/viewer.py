"""The person looking at the console, and what they may see and change."""

from dataclasses import dataclass, field

from memstore.errors import NotAllowed
from memstore.facts.paths import Scope
from memstore.rooms.tickets import rooms_private


@dataclass(frozen=True, slots=True)
class Viewer:
    """The person looking: their person name (whose user memory is theirs), whether they are
    staff, and the bots staff made them an editor of. `private_rooms`: the rooms bound as
    private conversations (read from the bindings when not given), whose memory only staff see
    here."""

    person: str
    staff: bool = False
    editor_of: frozenset[str] = field(default_factory=frozenset)
    private_rooms: frozenset[str] | None = None

    @property
    def private_conversations(self) -> frozenset[str]:
        """`private_rooms`, read from the bindings on first use when not given (so a Viewer is
        made without touching the database)."""
        if self.private_rooms is None:
            object.__setattr__(self, "private_rooms", rooms_private())
        return self.private_rooms

    def may_see(self, scope: Scope) -> bool:
        """User memory is private to its person (and staff); so is a private conversation's
        memory to staff (nobody else is known to read it; only the people in
        that conversation get it back); everything else is visible."""
        if self.staff:
            return True
        if scope.kind == "user":
            return scope.name == self.person
        return not self.private_conversation(scope)

    def private_conversation(self, scope: Scope) -> bool:
        """Whether a scope is a private conversation's memory (not legacy room memory)."""
        return scope.kind == "room" and scope.name in self.private_conversations

    def may_edit(self, bot: str) -> bool:
        """Staff change any bot's memory; other people only that of bots they are editors of."""
        return self.staff or bot in self.editor_of

    def check_editor(self, bot: str) -> None:
        """NotAllowed unless this person may edit, delete, restore or clear `bot`'s memory."""
        if not self.may_edit(bot):
            raise NotAllowed(
                f"You can read {bot}'s memory but not change it: staff can make you one of "
                "its editors."
            )
