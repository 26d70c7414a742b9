"""Reads for the console's learning view: what the learner did, skipped, refused and failed,
and its current state (mode, model, today's budget, queue).

A person sees their own direct rooms' learning and everything from group rooms; staff (no
`viewer`) see all. Nothing here reads message text beyond what an event recorded.
"""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q

from memstore.facts.paging import Page
from memstore.llm.budget import budget_spent
from memstore.llm.config import learner_config
from memstore.models import Exchange, LearningEvent

KINDS = (
    "saved",
    "removed",
    "would_save",
    "would_remove",
    "held_save",
    "held_remove",
    "skipped",
    "refused",
    "ignored",
    "failed",
)
LABELS = {
    "saved": "saved",
    "removed": "removed",
    "would_save": "would have saved (report mode)",
    "would_remove": "would have removed (report mode)",
    "held_save": "held for review, not saved",
    "held_remove": "held for review, not removed",
    "skipped": "skipped",
    "refused": "refused",
    "ignored": "ignored reply lines",
    "failed": "failed",
}
REASONS = {
    "small_talk": "small talk",
    "room_kind": "room not learned from",
    "paused": "memory paused",
    "off": "learning off",
    "guests": "a guest took part",
    "budget": "budget exhausted",
    "too_old": "queued too long (worker stopped?)",
    "known": "already known",
    "secret": "looks like a secret",
    "secret_refused": "looks like a secret",
    "topic": "excluded topic",
    "topic_excluded": "excluded topic",
    "sensitive": "sensitive keyword",
    "sensitive_keyword": "sensitive keyword",
    "too_long": "too long",
    "empty": "empty",
    "not_known": "remove of an unknown fact",
    "not_ours": "another bot's fact",
    "limit": "over the per-exchange limit",
    "invalid": "not a valid fact",
    "invalid_fact": "not a valid fact",
    "protected": "saved on purpose",
    "instruction": "reads as an instruction",
    "held_for_review": "reads as an instruction",
    "other_person": "about someone else",
    "memory_paused": "memory paused",
    "malformed": "not in the reply's format",
}


@dataclass(frozen=True, slots=True)
class Activity:
    """One learning event, ready to display."""

    id: int
    at: datetime
    kind: str
    label: str
    reason: str
    reason_label: str
    mode: str
    bot: str
    room_id: str
    room_kind: str
    person: str
    scope: str
    tier: str
    fact_id: str
    text: str
    detail: str
    exchange_id: int


def activity_list(
    *,
    bot: str | None = None,
    kinds: list[str] | tuple[str, ...] | None = None,
    reason: str | None = None,
    room_id: str | None = None,
    exchange_id: int | None = None,
    viewer: str | None = None,
    offset: int = 0,
    limit: int = 50,
) -> Page[Activity]:
    """Learning events, newest first: filter by bot, kinds, reason, room or exchange. With
    `viewer` (a non-staff person), direct-room events of other people are left out."""
    rows = _visible(LearningEvent.objects.all(), viewer)
    if bot:
        rows = rows.filter(bot=bot)
    if kinds:
        rows = rows.filter(kind__in=list(kinds))
    if reason:
        rows = rows.filter(reason=reason)
    if room_id:
        rows = rows.filter(room_id=room_id)
    if exchange_id is not None:
        rows = rows.filter(exchange_id=exchange_id)
    total = rows.count()
    page = rows.order_by("-at", "-id")[offset : offset + limit]
    return Page(items=[_activity(r) for r in page], total=total, offset=offset, limit=limit)


def activity_counts(*, bot: str | None = None, viewer: str | None = None) -> dict[str, int]:
    """How many events of each kind (for filter tabs); kinds with none are 0."""
    rows = _visible(LearningEvent.objects.all(), viewer)
    if bot:
        rows = rows.filter(bot=bot)
    counts = dict(rows.values_list("kind").annotate(n=Count("id")).order_by())
    return {kind: counts.get(kind, 0) for kind in KINDS}


@dataclass(frozen=True, slots=True)
class LearningStatus:
    """The learner's state for a console header."""

    mode: str  # off | report | write
    model: str
    daily_tokens: int
    spent_today: int
    queued: int
    failed: int

    @property
    def budget_left(self) -> int:
        return max(0, self.daily_tokens - self.spent_today)


def learning_status() -> LearningStatus:
    """Mode, model, today's token use against the budget, and exchanges waiting or failed."""
    config = learner_config()
    counts = dict(
        Exchange.objects.filter(status__in=[Exchange.QUEUED, Exchange.FAILED])
        .values_list("status")
        .annotate(n=Count("id"))
        .order_by()
    )
    return LearningStatus(
        mode=config.mode,
        model=config.model,
        daily_tokens=config.daily_tokens,
        spent_today=budget_spent(),
        queued=counts.get(Exchange.QUEUED, 0),
        failed=counts.get(Exchange.FAILED, 0),
    )


def events_visible(rows, viewer: str | None):
    """Learning events a person may see (their own direct rooms and every group room); staff
    (no `viewer`) see all."""
    return _visible(rows, viewer)


def _visible(rows, viewer: str | None):
    if viewer is None:
        return rows
    return rows.filter(~Q(room_kind="direct") | Q(person=viewer))


def _activity(row: LearningEvent) -> Activity:
    return Activity(
        id=row.pk,
        at=row.at,
        kind=row.kind,
        label=LABELS.get(row.kind, row.kind),
        reason=row.reason,
        reason_label=REASONS.get(row.reason, row.reason.replace("_", " ")),
        mode=row.mode,
        bot=row.bot,
        room_id=row.room_id,
        room_kind=row.room_kind,
        person=row.person,
        scope=row.scope,
        tier=row.tier,
        fact_id=row.fact_id,
        text=row.text,
        detail=row.detail,
        exchange_id=row.exchange_id,
    )
