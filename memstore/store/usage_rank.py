"""Usage as a small rank adjustment: reads `FactUsage` for facts about to be ranked.

Owns `usage_bonuses` (fact id -> the `memstore.facts.ranking.usage_bonus` of its usage in the
given scopes, the best when several scopes hold it) and `usage_rescored`, recall's use of it: a
fused score is nudged by at most USAGE_RECALL_SHARE of itself per rank unit of bonus: enough to
pass an equally good neighbour (with RRF_K = 10, neighbours in the fused list are 8-9 % apart),
never enough to outweigh what a query matched. Does not count usage
(`memstore.upkeep.usage` does) or change any file: importance stays as written.
"""

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC

from django.utils import timezone

from memstore.facts.ranking import usage_bonus
from memstore.models import FactUsage

USAGE_RECALL_SHARE = 0.1  # a fused score moves by at most 10 % (+) or 5 % (-)


def usage_bonuses(*, scope_keys: Iterable[str], fact_ids: Iterable[str]) -> dict[str, float]:
    """The usage bonus of each of these facts that has usage recorded (others are neutral)."""
    ids = list(dict.fromkeys(fact_ids))
    if not ids:
        return {}
    today = timezone.now().astimezone(UTC).date()
    rows = FactUsage.objects.filter(scope_key__in=list(scope_keys), fact_id__in=ids).values_list(
        "fact_id", "recalled", "last_used"
    )
    best: dict[str, float] = {}
    for fact_id, recalled, last_used in rows:
        bonus = usage_bonus(
            recalled=recalled, last_used=last_used.astimezone(UTC).date(), today=today
        )
        best[fact_id] = max(best.get(fact_id, bonus), bonus)
    return {fact_id: bonus for fact_id, bonus in best.items() if bonus}


def usage_rescored[T](fused: list[T], *, scope_keys: Iterable[str]) -> list[T]:
    """Fused recall hits (with `fact_id`, `score`, `day`) re-ordered with their usage nudge;
    unchanged (the same list) when none has usage recorded."""
    bonuses = usage_bonuses(scope_keys=scope_keys, fact_ids=(f.fact_id for f in fused))
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
