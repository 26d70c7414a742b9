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


def scope_label(scope_key: str) -> str:
    """How a scope is named for people: "own", "about sam", "project launch", "room general"."""
    kind, _, name = scope_key.partition(":")
    labels = {"bot": "own", "user": f"about {name}", "project": f"project {name}"}
    return labels.get(kind, f"room {name}")
