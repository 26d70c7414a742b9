"""Feedback on a fact: a bot (or a person in the console) says a fact it used is `useful`
(still true), `outdated`, `wrong` or `do-not-use`, or a person confirms it.

What each verb writes is `memstore.facts.validity.feedback_meta` (`checked=`, `mark=`,
`review=` on the line); this module finds every copy of the fact the caller may read and writes
it on each, through the ordinary edit (bot lock of the shard's writer -> file -> history ->
index), so the file stays the truth: a `wrong` mark takes the fact out of the next prompt and
recall (`validity.is_expired`) whichever shard holds it, and its `review` day puts it in Health.
A passive read never writes any of this.

A bot marks copies in the scopes its room may read, under the same rules as a write: a project
it may only read is refused (`memstore.registry.grants`), legacy room memory is left alone
(read-only), and a fact hidden from it, or withheld, is not found.

Does not: decide what a verb means (`validity`), or who may call it (the doors' grants).
"""

from dataclasses import dataclass
from datetime import date

from django.utils import timezone

from memstore.errors import FactNotFound
from memstore.facts.paths import Scope
from memstore.facts.records import StoredFact
from memstore.facts.validity import feedback_meta
from memstore.registry.grants import membership_check
from memstore.rooms.access import Context, readable_scopes, visible, withholding_of
from memstore.store.selectors import fact_find
from memstore.store.services import fact_edit


@dataclass(frozen=True, slots=True)
class FeedbackGiven:
    """What a feedback did: the verb, the fact as it reads now, and how many copies it marked."""

    verb: str
    fact: StoredFact
    copies: int


def fact_feedback(
    *,
    copies: list[StoredFact],
    verb: str,
    by: str,
    via: str,
    person: str | None = None,
    today: date | None = None,
) -> FeedbackGiven:
    """Write a feedback verb (or "confirm") on each of these copies of one fact; FactNotFound
    when there are none."""
    if not copies:
        raise FactNotFound("No fact with that id in the memory this caller may read.")
    today = today or timezone.localdate()
    written = []
    for copy in copies:
        meta = feedback_meta(verb, copy.meta, today)
        if not meta:
            written.append(copy)
            continue
        shard = Scope.parse(copy.scope).shard(copy.shard_bot)
        written.append(
            fact_edit(
                shard=shard,
                fact_id=copy.fact_id,
                text=copy.text,
                person=person,
                by=by,
                via=via,
                meta=meta,  # type: ignore[arg-type]
            )
        )
    return FeedbackGiven(verb=verb, fact=written[0], copies=len(written))


def bot_feedback(*, ctx: Context, fact_id: str, verb: str, via: str = "api") -> FeedbackGiven:
    """A bot's feedback on a fact its room may read: every copy it may see is marked; a copy in
    a project the bot may only read is refused (MissingGrant), legacy room copies are skipped."""
    scopes = [s for s in readable_scopes(ctx) if s.kind != "room" or ctx.room_private]
    seen = visible(ctx)
    copies = fact_find(scopes=scopes, fact_id=fact_id.strip().lower())
    copies = withholding_of(ctx).shown([c for c in copies if c.visibility in seen])
    if not copies:
        raise FactNotFound("No fact with that id in the memory this bot may read here.")
    for copy in copies:
        scope = Scope.parse(copy.scope)
        if scope.kind == "project":
            membership_check(bot=ctx.bot, project=scope.name, read_only=ctx.read_only)
    return fact_feedback(copies=copies, verb=verb, by=ctx.bot, via=via, person=ctx.person)
