"""The person looking at the console, and what they may see and change (SPEC §6)."""

from dataclasses import dataclass, field

from memstore.errors import NotAllowed
from memstore.facts.paths import Scope


@dataclass(frozen=True, slots=True)
class Viewer:
    """The person looking: their person name (whose user memory is theirs), whether they are
    staff, and the bots staff made them an editor of."""

    person: str
    staff: bool = False
    editor_of: frozenset[str] = field(default_factory=frozenset)

    def may_see(self, scope: Scope) -> bool:
        """User memory is private to its person (and staff); everything else is visible."""
        return scope.kind != "user" or self.staff or scope.name == self.person

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
