"""Usage as a small rank adjustment: reads `FactUsage` for facts about to be ranked.

Owns `usage_bonuses` (fact id -> the `memstore.facts.ranking.usage_bonus` of its usage in the
given scopes, the best when several scopes hold it) and `usage_rescored`, recall's use of it: a
fused score is nudged by at most USAGE_RECALL_SHARE of itself per rank unit of bonus: enough to
pass an equally good neighbour (with RRF_K = 10, neighbours in the fused list are 8-9 % apart),
never enough to outweigh what a query matched. Does not count usage
(`memstore.upkeep.usage` does) or change any file: importance stays as written.

For a caller that folds the read into a statement of its own (recall loads the rows to show
with it: one round trip fewer): `USAGE_SQL` (one JSON value), `usage_bonuses_parse`,
`usage_applied` and `usage_reach` (how many hits can still end among the first n once nudged,
so the caller loads just those rows before it knows the usage).
"""

import json
from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, date

from django.utils import timezone

from memstore.facts.ranking import USAGE_IDLE_PENALTY, USAGE_MAX_BONUS, usage_bonus
from memstore.models import FactUsage

USAGE_RECALL_SHARE = 0.1  # a fused score moves by at most 10 % (+) or 5 % (-)
_MOST_UP = 1 + USAGE_RECALL_SHARE * USAGE_MAX_BONUS
_MOST_DOWN = 1 - USAGE_RECALL_SHARE * USAGE_IDLE_PENALTY

# The usage of the facts (%s: their ids) in the scopes (%s: their keys), days in UTC, one JSON
# value: a caller folds it into a statement of its own as a scalar subquery.
USAGE_SQL = (
    "SELECT coalesce(json_agg(json_build_array(fact_id, recalled,"
    " (last_used AT TIME ZONE 'UTC')::date::text)), '[]')"
    " FROM memstore_factusage WHERE fact_id = ANY(%s) AND scope_key = ANY(%s)"
)


def usage_bonuses(*, scope_keys: Iterable[str], fact_ids: Iterable[str]) -> dict[str, float]:
    """The usage bonus of each of these facts that has usage recorded (others are neutral)."""
    ids = list(dict.fromkeys(fact_ids))
    if not ids:
        return {}
    rows = FactUsage.objects.filter(scope_key__in=list(scope_keys), fact_id__in=ids).values_list(
        "fact_id", "recalled", "last_used"
    )
    return _best((fact_id, n, last.astimezone(UTC).date()) for fact_id, n, last in rows)


def usage_bonuses_parse(value: list | str) -> dict[str, float]:
    """`usage_bonuses` from the value USAGE_SQL selects."""
    rows = json.loads(value) if isinstance(value, str) else value
    return _best((fact_id, n, date.fromisoformat(day)) for fact_id, n, day in rows)


def _best(rows: Iterable[tuple[str, int, date]]) -> dict[str, float]:
    today = timezone.now().astimezone(UTC).date()
    best: dict[str, float] = {}
    for fact_id, recalled, last_used in rows:
        bonus = usage_bonus(recalled=recalled, last_used=last_used, today=today)
        best[fact_id] = max(best.get(fact_id, bonus), bonus)
    return {fact_id: bonus for fact_id, bonus in best.items() if bonus}


def usage_reach(fused: list, first: int) -> int:
    """How many of the fused hits (best first) could be among the `first` once nudged: those
    whose score at its most raised reaches the `first`-th's at its most lowered."""
    if len(fused) <= first:
        return len(fused)
    floor = fused[first - 1].score * _MOST_DOWN / _MOST_UP * (1 - 1e-9)
    return sum(1 for f in fused if f.score >= floor)


def usage_rescored[T](fused: list[T], *, scope_keys: Iterable[str]) -> list[T]:
    """Fused recall hits (with `fact_id`, `score`, `day`) re-ordered with their usage nudge;
    unchanged (the same list) when none has usage recorded."""
    return usage_applied(
        fused, usage_bonuses(scope_keys=scope_keys, fact_ids=(f.fact_id for f in fused))
    )


def usage_applied[T](fused: list[T], bonuses: dict[str, float]) -> list[T]:
    """The hits re-ordered with these bonuses (the same list when there are none)."""
    if not bonuses:
        return fused
    nudged = [
        replace(f, score=f.score * (1 + USAGE_RECALL_SHARE * bonuses[f.fact_id]))
        if f.fact_id in bonuses
        else f
        for f in fused
    ]
    nudged.sort(key=lambda f: (-f.score, -f.day.toordinal(), f.fact_id))
    return nudged
