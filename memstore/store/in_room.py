"""A save made for a bot in a room: the shard its Context writes for a scope (decided by
`memstore.rooms.access`, never the caller's say-so), then the one write service. The bots' door
(`memstore.calls.facts`), the learner ("remember that", summarize) and the importers all save
through `remember_in_room`, so the same rules hold whichever way a fact comes in.
"""

from datetime import date

from memstore.errors import InvalidFact
from memstore.facts.paths import ScopeKind
from memstore.facts.ranking import Tier
from memstore.facts.records import StoredFact
from memstore.rooms.access import Context, writable_shard
from memstore.rules.failures import refusals_recorded
from memstore.store.services import fact_remember
from memstore.vocabulary import MAX_WEIGHT, MIN_WEIGHT


@refusals_recorded("remember")
def remember_in_room(
    *,
    ctx: Context,
    text: str,
    scope: ScopeKind = "bot",
    project: str | None = None,
    tier: Tier = "log",
    meta: dict[str, object] | None = None,
    via: str = "api",
    day: date | None = None,
    acting: str | None = None,
) -> StoredFact:
    """Save a fact in the shard this context writes for `scope` (the content rules, the room's
    person's excluded topics included, are the service's; `day`: the fact's date when it is
    older than today, as for an import), as the bot (`by=`), naming the person who acted
    through it (`acting`, else the context's: `for=`). A `weight` is taken only for workspace
    records (scope server), within MIN_WEIGHT..MAX_WEIGHT."""
    shard = writable_shard(ctx, scope, project)
    if meta and meta.get("weight") is not None:
        _weight_check(scope, meta["weight"])
    return fact_remember(
        shard=shard,
        text=text,
        tier=tier,
        day=day,
        meta=meta,
        person=ctx.person,
        by=ctx.bot,
        via=via,
        acting=acting or ctx.acting,
    )


def _weight_check(scope: ScopeKind, weight: object) -> None:
    if scope != "server":
        raise InvalidFact(
            "weight is only for workspace records (scope server); other facts rank by tier "
            "and importance."
        )
    try:
        value = float(weight)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        value = float("nan")
    if not MIN_WEIGHT <= value <= MAX_WEIGHT:
        raise InvalidFact(f"weight must be a number from {MIN_WEIGHT} to {MAX_WEIGHT}.")
