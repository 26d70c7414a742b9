"""What the learner did for a bot, and what failed, for people.

The learner (`memstore.learning`) records every decision as an event and offers
`activity_list`, `activity_counts` and `learning_status`; this module only asks them with the
console's privacy rule (a person sees learning from group rooms and their own direct rooms;
staff see all). A learner removal takes the fact from the bot's own shards only: for each one on
the page it also says which other bots still keep a copy (read now, from the synced index), since
those copies still reach their prompts.
"""

from dataclasses import dataclass, field

from memstore.console.viewer import Viewer
from memstore.facts.paging import Page
from memstore.facts.paths import Scope
from memstore.index import index_sync
from memstore.learning import (
    Activity,
    LearningStatus,
    activity_counts,
    activity_list,
    learning_status,
)
from memstore.models import Fact

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
    # activity id -> the other bots whose shards still hold the fact a removal took from this bot's
    copies_left: dict[int, list[str]] = field(default_factory=dict)

    @property
    def rows(self) -> list["ActivityRow"]:
        """The page's events, each with the copies a removal left (for the template)."""
        return [ActivityRow(a, self.copies_left.get(a.id, [])) for a in self.page.items]


@dataclass(frozen=True, slots=True)
class ActivityRow:
    """One event of the page and, for a removal, the other bots still holding the fact."""

    activity: Activity
    copies_left: list[str]


REMOVAL_KINDS = ("removed", "would_remove")


def copies_left(items: list[Activity]) -> dict[int, list[str]]:
    """For each removal among these events, the other bots still holding a copy of its fact in
    the same scope (those copies still go into prompts); removals that left none are absent."""
    removals = [a for a in items if a.kind in REMOVAL_KINDS and a.fact_id and a.scope]
    if not removals:
        return {}
    scopes = {a.scope for a in removals}
    index_sync(scopes=[Scope.parse(s) for s in scopes])
    rows = Fact.objects.filter(
        fact_id__in={a.fact_id for a in removals}, scope_key__in=scopes
    ).values_list("fact_id", "scope_key", "shard_bot")
    holders: dict[tuple[str, str], set[str]] = {}
    for fact_id, scope, shard_bot in rows:
        holders.setdefault((fact_id, scope), set()).add(shard_bot)
    found = {}
    for a in removals:
        others = sorted(holders.get((a.fact_id, a.scope), set()) - {a.bot})
        if others:
            found[a.id] = others
    return found


def bot_learning(
    *, bot: str, viewer: Viewer, kind: str = "", offset: int = 0, limit: int = 50
) -> LearningView:
    """What the learner did for this bot, newest first."""
    person = _person(viewer)
    counts = activity_counts(bot=bot, viewer=person)
    page = activity_list(
        bot=bot, kinds=[kind] if kind else None, viewer=person, offset=offset, limit=limit
    )
    return LearningView(
        status=learning_status(),
        kinds=[(k, n) for k, n in counts.items() if n],
        page=page,
        copies_left=copies_left(list(page.items)),
    )
