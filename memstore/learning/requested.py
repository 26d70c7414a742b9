"""Keeping what a person asked to be remembered, at once, whatever the learning mode.

`exchange_submit` calls `requests_keep` for every newly reported exchange: the facts
`memstore.learning.asked` finds in the person's own message are saved straight away through the
ordinary write path (`memstore.store.in_room.remember_in_room`: the content rules — secrets, excluded
topics — apply as to any save), as lasting profile facts marked `via=tool` and `pin=1` (saved on
request, so upkeep never archives or rewrites them). In a direct room they go to the person's
user memory; elsewhere to the bot's own memory, where a fact about the speaker ("I prefer…")
is kept with their name ("sam: Prefers…", linked to the statement it was made from and to sam,
so erasing the statement or sam's erase takes it too: `memstore.facts.derived`), or refused
when the room did not say who spoke. Only the person's own statement about themselves or the
conversation is saved at once: instruction-shaped text ("keep in mind that every bot must…",
`memstore.rules.instructions`), and in shared memory a fact naming another registered person
("Demo is pregnant"), are held in the review inbox, as the learner holds them (one rule for
both: `memstore.rules.others`); questions are never requests (`asked`). The write path's gate (`memstore.rules.content`) applies to what is
saved: secrets, a paused person, an excluded topic, sensitive keywords. Every outcome is a
learning event, so the console's learning view shows it.

Does not: call a model, or learn anything the person did not ask for (the learner does that,
later, and is told which facts these were so it does not save them twice).
"""

import re
from dataclasses import dataclass
from datetime import date

from memstore.errors import MemstoreError
from memstore.facts.derived import derived_meta
from memstore.facts.markdown import fact_identity, make_fact
from memstore.learning.apply import provenance
from memstore.learning.asked import Asked, asked_requests
from memstore.models import Exchange, LearningEvent
from memstore.rooms.access import Context
from memstore.rules.instructions import instruction_kind
from memstore.rules.others import REASON as OTHER_PERSON
from memstore.rules.others import AskedOthers, asked_others, held_detail
from memstore.store.in_room import remember_in_room

VIA = "tool"
SAVED_DETAIL = "Asked to remember it: saved at once, pinned."
MODE = "request"  # the events' `mode`: not the learner's report or write
_PREFERENCE = re.compile(
    r"^(?:really\s+)?(?:prefers|likes|loves|dislikes|hates|wants|enjoys|avoids)\b", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class Requested:
    """One fact a person asked for: `status` saved (with its id), held (for review) or refused
    (with the rule's code and message)."""

    text: str
    status: str
    fact_id: str = ""
    scope: str = ""
    reason: str = ""
    detail: str = ""


def requests_find(message: str) -> list[Asked]:
    """The facts the person's message asks to be remembered (pure; see `asked`)."""
    return asked_requests(message)


def requests_keep(
    *, ctx: Context, asked: list[Asked], message_id: str, day: date
) -> list[Requested]:
    """Save (or hold, or refuse) each asked-for fact; `requests_record` records the outcomes once
    the exchange is stored. A repeated save of the same fact writes nothing (same identity)."""
    scope = "user" if ctx.user_memory_allowed else "bot"
    meta_base = {"pin": "1", "src": provenance(ctx.room.id, message_id), "via": VIA}
    outcomes: list[Requested] = []
    others = asked_others([a.text for a in asked], speaker=ctx.person) if scope == "bot" else None
    for request in asked:
        text = request.text
        if request.about_speaker and scope == "bot":
            # The bot's own memory is about no one in particular: say whose this is.
            if not ctx.person:
                outcomes.append(
                    Requested(
                        text=text,
                        status="refused",
                        reason="person_unknown",
                        detail="It is about the speaker, and this room did not say who spoke "
                        "(X-Person): not saved, so it is never taken for someone else.",
                    )
                )
                continue
            text = f"{ctx.person}: {text}"
        meta = meta_base | ({"type": "preference"} if _PREFERENCE.match(request.text) else {})
        if text != request.text:  # made from their statement: erased with it (and by them)
            meta |= derived_meta(sources=[fact_identity(request.text)], about=ctx.person)
        if held := _held(ctx, text, scope, meta, day, others):
            outcomes.append(held)
            continue
        try:
            stored = remember_in_room(
                ctx=ctx,
                text=text,
                scope=scope,
                tier="profile",
                meta=meta,
                via=VIA,
                acting=ctx.person,  # they asked for it
            )
        except MemstoreError as error:
            outcomes.append(
                Requested(text=text, status="refused", reason=error.code, detail=str(error))
            )
            continue
        outcomes.append(
            Requested(
                text=stored.text,
                status="saved",
                fact_id=stored.fact_id,
                scope=stored.scope,
                detail=SAVED_DETAIL,
            )
        )
    return outcomes


def _held(
    ctx: Context, text: str, scope: str, meta: dict, day: date, others: AskedOthers | None
) -> Requested | None:
    """What is not saved at once but held for a person in the review inbox: an instruction,
    and, in shared memory, a fact naming another registered person (theirs to tell)."""
    if kind := instruction_kind(text):
        why = (
            f"Reads as an instruction ({kind}), not a fact: not saved; a person decides in the "
            "review inbox."
        )
        reason = "instruction"
    elif others is not None and (other := others.held(text)):
        why, reason = held_detail(other), OTHER_PERSON
    else:
        return None
    fact = make_fact(text=text, day=day, tag=None, meta=meta)
    return Requested(
        text=text,
        status="held",
        fact_id=fact.identity,
        scope=f"user:{ctx.person}" if scope == "user" else f"bot:{ctx.bot}",
        reason=reason,
        detail=why,
    )


def requests_record(*, exchange_id: int, outcomes: list[Requested]) -> None:
    """One learning event per outcome, on the stored exchange (a repeat records nothing twice)."""
    if not outcomes:
        return
    exchange = Exchange.objects.get(pk=exchange_id)
    LearningEvent.objects.bulk_create(
        [_event(exchange, f"asked{i}", outcome) for i, outcome in enumerate(outcomes)],
        ignore_conflicts=True,
    )


def requests_of(exchange_id: int) -> list[Requested]:
    """The outcomes recorded for a stored exchange (for a repeated report's receipt)."""
    rows = LearningEvent.objects.filter(
        exchange_id=exchange_id, mode=MODE, key__startswith="asked"
    ).order_by("key")
    status = {"saved": "saved", "held_save": "held", "refused": "refused"}
    return [
        Requested(
            text=row.text,
            status=status[row.kind],
            fact_id=row.fact_id,
            scope=row.scope,
            reason="" if row.reason == "requested" else row.reason,
            detail=row.detail,
        )
        for row in rows
    ]


def _event(exchange: Exchange, key: str, outcome: Requested) -> LearningEvent:
    kind = {"saved": "saved", "held": "held_save", "refused": "refused"}[outcome.status]
    return LearningEvent(
        exchange=exchange,
        key=key,
        bot=exchange.bot,
        room_id=exchange.room_id,
        room_kind=exchange.room_kind,
        person=exchange.person,
        kind=kind,
        reason=outcome.reason or "requested",
        mode=MODE,
        scope=outcome.scope,
        tier="profile",
        fact_id=outcome.fact_id,
        # A refused secret is never recorded, only that it was refused.
        text="" if outcome.reason == "secret_refused" else outcome.text,
        detail=outcome.detail,
    )
