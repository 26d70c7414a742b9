"""A recall answer's budget: which of the ranked facts fit within the answer's count and
characters, skipping what is gone, withheld or past its `until` day, and how many of the rest
recall would never return (so "N more" counts only what it could)."""

from django.utils import timezone

from memstore.facts.records import StoredFact
from memstore.facts.validity import is_expired
from memstore.rules.withheld import Withholding


def budgeted(
    rows: dict[int, StoredFact],
    order: list[int],
    limit: int,
    budget: int,
    withheld: Withholding | None = None,
) -> tuple[list[StoredFact], int, int]:
    """The first `limit` facts in order, stopping at the first that would pass the character
    budget (a row deleted since it was ranked is skipped, and so is one the rule withholds);
    and how many were withheld on the way. An expired fact (`until` passed) is skipped too:
    it stays in its file, listed as expired, but is no longer true. Also where in `order` it
    stopped: the candidates from there on were not looked at."""
    today = timezone.localdate()
    items: list[StoredFact] = []
    used = skipped = 0
    for at, pk in enumerate(order):
        fact = rows.get(pk)
        if fact is None:
            continue
        if _unreturnable(fact, today, withheld):
            skipped += 1
            continue
        if len(items) == limit or used + len(fact.text) > budget:
            return items, skipped, at
        items.append(fact)
        used += len(fact.text)
    return items, skipped, len(order)


def _unreturnable(fact: StoredFact, today, withheld: Withholding | None) -> bool:
    return (withheld is not None and withheld.reason(fact) is not None) or is_expired(
        fact.meta, today
    )


def never_returned(
    rows: dict[int, StoredFact],
    rest: list[int],
    withheld: Withholding | None,
    expired: frozenset[int] = frozenset(),
) -> int:
    """How many candidates past those `budgeted` looked at recall would never return: past
    their `until` day, or withheld. Rows loaded are checked here; for the others, `expired`
    holds the scopes' facts past their `until` day (the rows statement read them)."""
    today = timezone.localdate()
    never = 0
    for pk in rest:
        fact = rows.get(pk)
        if fact is None:
            never += pk in expired
        elif _unreturnable(fact, today, withheld):
            never += 1
    return never
