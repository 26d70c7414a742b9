"""How the home page shows what failed and what the learner did.

Pure: no queries, no file I/O (as every presenter)."""

from memstore.console.overview import Problems
from memstore.learning.activity import LABELS

# Learning events whose badge is a warning.
WARN_KINDS = ("failed", "refused", "held_save", "held_remove")


def nothing_failed(problems: Problems) -> bool:
    """Whether the home page's "What failed" has nothing to list."""
    return not (
        problems.refused
        or problems.unreadable
        or problems.learning
        or problems.shards
        or problems.links
        or problems.secrets.lines
        or problems.secrets.unchecked
    )


def learning_kinds(kinds: list[tuple[str, int]]) -> list[tuple[str, str, int]]:
    """(kind, label, how many) for the learning page's tabs."""
    return [(k, LABELS.get(k, k), n) for k, n in kinds]
