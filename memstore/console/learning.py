"""What the learner did for a bot, and what failed, for people (SPEC §7, §8).

The learner (`memstore.learning`) records every decision as an event and offers
`activity_list`, `activity_counts` and `learning_status`; this module only asks them with the
console's privacy rule (a person sees learning from group rooms and their own direct rooms;
staff see all).
"""

from dataclasses import dataclass

from memstore.console.viewer import Viewer
from memstore.facts.paging import Page
from memstore.learning import (
    Activity,
    LearningStatus,
    activity_counts,
    activity_list,
    learning_status,
)

PROBLEM_KINDS = ("failed", "refused")


def _person(viewer: Viewer) -> str | None:
    return None if viewer.staff else viewer.person


def learning_problems(*, viewer: Viewer, limit: int = 10) -> list:
    """The newest failed or refused learning events the person may see."""
    page = activity_list(kinds=PROBLEM_KINDS, viewer=_person(viewer), limit=limit)
    return list(page.items)


@dataclass(frozen=True, slots=True)
class LearningView:
    """A bot's learning page: the learner's state, counts per kind, and one page of events."""

    status: LearningStatus
    kinds: list[tuple[str, int]]  # (kind, how many), the kinds that happened
    page: Page[Activity]


def bot_learning(
    *, bot: str, viewer: Viewer, kind: str = "", offset: int = 0, limit: int = 50
) -> LearningView:
    """What the learner did for this bot, newest first."""
    person = _person(viewer)
    counts = activity_counts(bot=bot, viewer=person)
    return LearningView(
        status=learning_status(),
        kinds=[(k, n) for k, n in counts.items() if n],
        page=activity_list(
            bot=bot, kinds=[kind] if kind else None, viewer=person, offset=offset, limit=limit
        ),
    )
