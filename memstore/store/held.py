"""Saves the gate held for a person: instruction-shaped text that came in through a door (the
API, MCP, the console, an import, summarize, upkeep) is not written but kept as a proposal
(`memstore.models.Proposal`, origin `held`, action `save`) with everything the save needed, so
a person can accept it in the review inbox (`memstore.console.review`) or the bot's Proposals
page, where it is written as it would have been (`memstore.upkeep.proposals`).

`held_recorded` wraps the one save service (`memstore.store.services.fact_remember`), so no door
can forget to record a hold; the `HeldForReview` it raises carries the proposal's id in
`detail["review"]`. The same text held twice for the same bot and scope is one proposal.

Does not: decide what is held (`memstore.rules.content`), or apply an accepted one.
"""

import functools
import hashlib
import json
from collections.abc import Callable
from datetime import date

from django.utils import timezone

from memstore.errors import HeldForReview
from memstore.models import Proposal
from memstore.store.changes import meta_authored

ORIGIN = "held"
ACTION = "save"


def held_recorded(save: Callable) -> Callable:
    """Record a save the gate held (HeldForReview) as a proposal, then raise it on."""

    @functools.wraps(save)
    def wrapper(**kwargs):
        try:
            return save(**kwargs)
        except HeldForReview as held:
            if "review" in held.detail:
                raise
            proposal = held_record(held, **kwargs)
            kind = held.detail.get("kind", "")
            raise HeldForReview(
                f"This reads as an instruction to a model ({kind}), not a fact, so it was not "
                "saved: it waits in the review inbox, where a person can accept or reject it. "
                "Don't retry; tell the person it is waiting for review, or save it as a fact "
                "about the world instead.",
                detail=held.detail | {"review": proposal.pk},
            ) from None

    return wrapper


def held_record(
    held: HeldForReview,
    *,
    shard,
    text: str,
    tier: str = "log",
    day: date | None = None,
    meta: dict[str, object] | None = None,
    person: str | None = None,
    by: str = "",
    via: str = "api",
    acting: str | None = None,
) -> Proposal:
    """The proposal that keeps a held save (the one already there for the same text), its
    metadata saying who saved it (`acting`: the person who acted through the bot), so the line
    a person accepts is written as it came in."""
    scope_key = str(shard.scope)
    canonical = " ".join(text.split()).lower()
    key = hashlib.sha1(
        json.dumps([ORIGIN, ACTION, shard.bot, scope_key, canonical]).encode()
    ).hexdigest()
    save = {
        "tier": tier,
        "day": (day or timezone.localdate()).isoformat(),
        "meta": {
            str(k): str(v) for k, v in meta_authored(meta, by=by, via=via, acting=acting).items()
        },
        "person": person or "",
        "by": by,
        "via": via,
    }
    proposal, _ = Proposal.objects.get_or_create(
        key=key,
        defaults={
            "origin": ORIGIN,
            "action": ACTION,
            "bot": shard.bot,
            "scope_key": scope_key,
            "text": text,
            "reason": f"Held by the gate: reads as an instruction ({held.detail.get('kind', '')}),"
            f" saved by {by or 'someone'} via {via}.",
            "result": {"save": save},
        },
    )
    return proposal
