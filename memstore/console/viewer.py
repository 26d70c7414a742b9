"""The person looking at the console, and what they may see (SPEC §6)."""

from dataclasses import dataclass

from memstore.paths import Scope


@dataclass(frozen=True, slots=True)
class Viewer:
    """The person looking: their username (their user-memory name) and whether they are staff."""

    person: str
    staff: bool = False

    def may_see(self, scope: Scope) -> bool:
        """User memory is private to its person (and staff); everything else is visible."""
        return scope.kind != "user" or self.staff or scope.name == self.person
