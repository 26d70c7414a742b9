"""Pure ranking rules: a fact's tier, weight and rank, and newest-wins merging.

No I/O and no Django here; the index stores what these functions compute.
"""

import math
from collections.abc import Iterable
from datetime import date
from typing import Protocol

from memstore.facts import markdown
from memstore.facts.validity import checked_of
from memstore.vocabulary import TIERS, Tier

__all__ = ["TIERS", "Tier"]
TIER_WEIGHTS: dict[Tier, float] = {"profile": 1.0, "log": 1.0, "note": 0.5, "episode": 1.5}
_EPOCH = date(1970, 1, 1)


def tier_of(*, tier_file: str, tag: str | None) -> Tier:
    """The tier of a fact from the file it is in and its tag (tags only count inside logs)."""
    if tier_file == "profile":
        return "profile"
    if tag == "note":
        return "note"
    if tag == "episode":
        return "episode"
    return "log"


def weight_of(*, tier: Tier, meta: dict[str, str]) -> float:
    """The tier's weight, unless an explicit positive `weight=` overrides it."""
    if "weight" not in meta:
        return TIER_WEIGHTS[tier]
    try:
        explicit = float(meta["weight"])
    except ValueError:
        return TIER_WEIGHTS[tier]
    return explicit if explicit > 0 and math.isfinite(explicit) else TIER_WEIGHTS[tier]


# How much `importance=` (0..1) moves a fact: importance 1 ranks like a fact saved
# IMPORTANCE_MONTHS / 2 months later, importance 0 that much earlier; 0.5 or none is neutral.
IMPORTANCE_MONTHS = 3.0


def importance_of(meta: dict[str, str] | None) -> float | None:
    """The fact's `importance=` as a number in [0, 1], or None when absent or unreadable."""
    try:
        value = float((meta or {})["importance"])
    except (KeyError, ValueError):
        return None
    return value if 0.0 <= value <= 1.0 else None


def rank_of(*, day: date, weight: float, importance: float | None = None) -> float:
    """Days since 1970-01-01 over 30, plus log2 of the weight, plus
    IMPORTANCE_MONTHS x (importance - 0.5) when the fact has an importance."""
    bonus = 0.0 if importance is None else IMPORTANCE_MONTHS * (importance - 0.5)
    return (day - _EPOCH).days / 30 + math.log2(weight) + bonus


# A fact confirmed by a person or reported still true by a bot (`checked=`) ranks as if written
# on that day, by at most VERIFIED_MAX_BONUS (a month): a little higher, never past the news.
VERIFIED_MAX_BONUS = 1.0


def verified_bonus(*, day: date, meta: dict[str, str] | None) -> float:
    """The rank a `checked` day adds: the months from the fact's date to it, at most a month."""
    checked = checked_of(meta)
    try:
        months = (date.fromisoformat(checked) - day).days / 30 if checked else 0.0
    except ValueError:  # a hand-written day that is no calendar day counts for nothing
        return 0.0
    return min(VERIFIED_MAX_BONUS, max(0.0, months))


# Usage (counted by upkeep): how often recall returned a fact and when a bot last used it
# nudges its rank a little, never its importance (nothing is written to the file). Bounded: at
# most +USAGE_MAX_BONUS (a month of recency) for a fact recalled often within USAGE_RECENT_DAYS,
# -USAGE_IDLE_PENALTY for one not used (recalled or put in a prompt) for USAGE_IDLE_DAYS. A fact
# with no usage recorded is neutral. Only recalls earn the bonus: prompts put the same facts in
# every section, and counting those would keep whatever is in the prompt there.
USAGE_MAX_BONUS = 1.0
USAGE_PER_DOUBLING = 0.25  # each doubling of the recall count adds this much, up to the cap
USAGE_RECENT_DAYS = 30
USAGE_IDLE_DAYS = 120
USAGE_IDLE_PENALTY = 0.5


def usage_bonus(*, recalled: int, last_used: date | None, today: date) -> float:
    """The rank adjustment for a fact's usage: small and bounded, 0 when none is recorded."""
    if last_used is None:
        return 0.0
    idle = (today - last_used).days
    if idle > USAGE_IDLE_DAYS:
        return -USAGE_IDLE_PENALTY
    if recalled > 0 and idle <= USAGE_RECENT_DAYS:
        return min(USAGE_MAX_BONUS, USAGE_PER_DOUBLING * math.log2(1 + recalled))
    return 0.0


def usage_bonus_sql(usage: str = "u.", today: str = "CURRENT_DATE") -> str:
    """`usage_bonus` in SQL over a LEFT JOINed memstore_factusage row (`usage` prefixes its
    columns; no row is neutral)."""
    idle = f"({today} - ({usage}last_used AT TIME ZONE 'UTC')::date)"
    return (
        f"(CASE WHEN {usage}last_used IS NULL THEN 0.0"
        f" WHEN {idle} > {USAGE_IDLE_DAYS} THEN {-USAGE_IDLE_PENALTY}"
        f" WHEN {usage}recalled > 0 AND {idle} <= {USAGE_RECENT_DAYS}"
        f" THEN LEAST({USAGE_MAX_BONUS}, {USAGE_PER_DOUBLING} * log(2, 1 + {usage}recalled))"
        " ELSE 0.0 END)"
    )


# Best first, one rule everywhere (prompt, learner's known facts, lists and recall's fallback):
# rank, then the newer date, then position (a later file — a later month — then a later line).
RANK_ORDER_FIELDS = ("-rank", "-day", "-file__path", "-position", "fact_id")


def rank_order_sql(fact: str = "f.", file: str = "m.") -> str:
    """The ORDER BY of `by_rank` in SQL; `fact`/`file` prefix the fact row's and its file's
    columns (pass "" for a subquery that already selected them)."""
    return f"{fact}rank DESC, {fact}day DESC, {file}path DESC, {fact}position DESC, {fact}fact_id"


class Placed(Protocol):
    fact_id: str
    day: date
    rank: float
    file: str
    position: int


def by_rank[T: Placed](facts: Iterable[T]) -> list[T]:
    """Facts best first, by the same rule as `rank_order_sql` and `RANK_ORDER_FIELDS`."""
    ordered = sorted(facts, key=lambda f: f.fact_id)
    # Python's sort is stable with reverse=True too: equal keys keep the fact_id order.
    ordered.sort(key=lambda f: (f.rank, f.day, f.file, f.position), reverse=True)
    return ordered


def by_weight(facts: Iterable) -> list:
    """Workspace (server-scope) records best first: the higher `weight=` first, then by rank
    (higher-weight items load first when many compete for the prompt's slots)."""
    ordered = by_rank(facts)
    ordered.sort(key=lambda f: weight_of(tier=f.tier, meta=f.meta), reverse=True)  # stable
    return ordered


def weight_order_sql(fact: str = "f.", file: str = "m.") -> str:
    """The ORDER BY of `by_weight` in SQL (prefixes as for `rank_order_sql`)."""
    return f"{fact}weight DESC, " + rank_order_sql(fact, file)


class Dated(Protocol):
    fact_id: str
    day: date


def merge_newest[T: Dated](facts: Iterable[T]) -> list[T]:
    """One fact per identity, the newest date winning (first seen wins a tie); order kept."""
    best: dict[str, T] = {}
    for fact in facts:
        seen = best.get(fact.fact_id)
        if seen is None or fact.day > seen.day:
            best[fact.fact_id] = fact
    return list(best.values())


def derived(tier_file: str, fact: markdown.FactLine) -> tuple[str, str, float, float, str]:
    """(text, tier, weight, rank, visibility): what ranking and search need, precomputed."""
    tier = tier_of(tier_file=tier_file, tag=fact.tag)
    meta = fact.meta
    weight = weight_of(tier=tier, meta=meta)
    visibility = meta.get("visibility", "context") if meta else "context"
    if visibility not in markdown.VISIBILITIES:
        visibility = "context"
    rank = rank_of(day=fact.day, weight=weight, importance=importance_of(meta))
    rank += verified_bonus(day=fact.day, meta=meta)
    return fact.text, tier, weight, rank, visibility
