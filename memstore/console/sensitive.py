"""The Sensitive keywords page: staff see and change the workspace's list (what keeps a
memory out of shared memory); everyone else may read it.

The list, its file and how it is matched are `memstore.rules.sensitive`; this module applies
who may change it and says what a page shows (the list in force, whether it is the workspace's
own or the default from settings, and the default for comparison).
"""

from dataclasses import dataclass

from django.conf import settings

from memstore.console.viewer import Viewer
from memstore.errors import NotAllowed
from memstore.rules.sensitive import (
    keywords_clean,
    keywords_in_force,
    keywords_reset,
    keywords_save,
)


@dataclass(frozen=True, slots=True)
class KeywordsView:
    """The list in force, whether staff saved it (else it is the default), the default list,
    and whether this viewer may change it."""

    words: tuple[str, ...]
    saved: bool
    default: tuple[str, ...]
    editable: bool

    @property
    def text(self) -> str:
        """The list as the page's text box holds it: one keyword a line."""
        return "\n".join(self.words)


def console_keywords(*, viewer: Viewer) -> KeywordsView:
    """What the Sensitive keywords page shows this viewer."""
    current = keywords_in_force()
    return KeywordsView(
        words=current.words,
        saved=current.saved,
        default=keywords_clean(settings.SENSITIVE_KEYWORDS),
        editable=viewer.staff,
    )


def console_keywords_save(*, viewer: Viewer, text: str) -> str:
    """Save the workspace's list from the page's text (one keyword or phrase a line, or
    comma-separated); staff only. Says what changed."""
    _staff(viewer)
    words = [part for line in text.splitlines() for part in line.split(",")]
    saved = keywords_save(words=words)
    if not saved.words:
        return "Saved an empty list: no keyword keeps a memory out of shared memory now."
    return f"Saved {len(saved.words)} keywords; they apply to every save and read from now on."


def console_keywords_reset(*, viewer: Viewer) -> str:
    """Go back to the default list from settings; staff only."""
    _staff(viewer)
    words = keywords_reset().words
    return f"Back to the default list ({len(words)} keywords, settings.SENSITIVE_KEYWORDS)."


def _staff(viewer: Viewer) -> None:
    if not viewer.staff:
        raise NotAllowed("Only staff may change the workspace's sensitive keywords.")
