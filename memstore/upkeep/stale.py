"""Stale learned facts: made by the learner, of low importance, older than UPKEEP_STALE_DAYS and
neither recalled nor put into a prompt in that time. Profile facts (lasting by definition) and
every fact saved on purpose are never stale. Pure selection; `run` archives them."""

from datetime import datetime, timedelta

from django.conf import settings

from memstore.facts.records import StoredFact
from memstore.models import FactUsage
from memstore.upkeep.guard import fact_protected

LOW_IMPORTANCE = 0.5  # below this (or unset) a learned fact is "low importance"


def importance_of(fact: StoredFact) -> float:
    """The fact's `importance=` (0-1), 0 when unset or unreadable."""
    try:
        return float(fact.meta.get("importance", 0))
    except (TypeError, ValueError):
        return 0.0


def stale_facts(
    facts: list[StoredFact], usage: dict[tuple[str, str], FactUsage], *, now: datetime
) -> list[StoredFact]:
    """The learned facts upkeep archives as stale."""
    days = int(settings.UPKEEP_STALE_DAYS)
    cutoff = now - timedelta(days=days)
    found = []
    for fact in facts:
        if fact_protected(fact.meta) or fact.meta.get("via") != "learner":
            continue
        if fact.tier == "profile" or fact.day > cutoff.date():
            continue
        if importance_of(fact) >= LOW_IMPORTANCE:
            continue
        row = usage.get((fact.scope, fact.fact_id))
        if row is not None and row.last_used >= cutoff:
            continue
        found.append(fact)
    return found
