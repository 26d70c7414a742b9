"""What was made from a fact: the derived copies one erase takes with it, and the only place
that decides which of them an erase may reach.

A derived copy is a line whose links (`memstore.facts.derived`: `from=`, `rel=supersedes:`)
name one of the target's identities, or a line made from such a copy, and so on; and, for a
person, a copy of the fact kept in a bot's own memory that says it is about them (`about=`).
A copy about a person is made from *their* statement: erased by anyone else only when their own
memory holds the fact it names (the same words from another person are not theirs).
It is within an erase's reach when its owner is: the bot whose shard holds it, and the person
whose memory it is in or whom it names. Proposals keep the text they made from a fact as
`made` beside it in their evidence (lessons for an About me note): that text is the fact's too.

The copies are read from the index (synced by the caller; its links and metadata are rebuilt
from the files). `derived_target` is what the erase and `verify-forgotten` look for.
"""

from dataclasses import dataclass

from django.db.models import Q

from memstore.facts.derived import ABOUT_KEY, FROM_KEY, about_of, sources_of
from memstore.facts.paths import Scope, Shard
from memstore.models import Fact, Link, Proposal
from memstore.privacy.reach import Reach
from memstore.privacy.target import REDACTED, Target, body_of

MAX_ROUNDS = 8  # a copy of a copy of a copy...: chains are short; a loop ends anyway


@dataclass(frozen=True, slots=True)
class Derived:
    """One line made from the target (or about its person): where it is, its id, its text."""

    shard: Shard
    fact_id: str
    text: str


def derived_copies(target: Target, reach: Reach) -> list[Derived]:
    """Every line made from the target, directly or through other copies, within `reach`."""
    found: dict[tuple[Shard, str], Derived] = {}
    ids = set(target.ids)
    for _ in range(MAX_ROUNDS):
        fresh = [
            copy
            for copy in _candidates(frozenset(ids), reach)
            if (copy.shard, copy.fact_id) not in found
        ]
        if not fresh:
            break
        for copy in fresh:
            found[(copy.shard, copy.fact_id)] = copy
        ids |= {copy.fact_id for copy in fresh}
    return sorted(found.values(), key=lambda c: (c.shard, c.fact_id))


def derived_target(target: Target, copies: list[Derived]) -> Target:
    """The target with its derived copies' identities and texts, and the texts proposals made
    from any of them."""
    ids = target.ids | {copy.fact_id for copy in copies}
    texts = {*target.texts, *(body_of(copy.text) for copy in copies), *_made_from(ids)}
    return Target(ids=frozenset(ids), texts=tuple(sorted(t for t in texts if t and t != REDACTED)))


def _candidates(ids: frozenset[str], reach: Reach) -> list[Derived]:
    linked = Link.objects.filter(kind="supersedes", target__in=ids).values_list(
        "scope_key", "shard_bot", "source"
    )
    by_link = Q(*[Q(scope_key=s, shard_bot=b, fact_id=f) for s, b, f in linked], _connector=Q.OR)
    about = Q(fact_id__in=ids, meta__has_key=ABOUT_KEY)
    named = Q(**{f"meta__{FROM_KEY}__regex": "|".join(sorted(ids))}) if ids else Q(pk__in=[])
    rows = Fact.objects.filter(named | about | (by_link if linked else Q(pk__in=[])))
    copies = []
    for row in rows.only("scope_key", "shard_bot", "fact_id", "text", "meta"):
        sources, about = sources_of(row.meta) & ids, about_of(row.meta)
        if not (sources or (row.fact_id in ids and about)):
            continue
        if about and about != reach.person and sources and not _held_by(about, sources):
            continue  # made from another person's statement of the same words
        scope = Scope.parse(row.scope_key)
        person = scope.name if scope.kind == "user" else about
        if reach.owns(bot=row.shard_bot, person=person):
            copies.append(Derived(scope.shard(row.shard_bot), row.fact_id, row.text))
    return copies


def _held_by(person: str, ids: frozenset[str]) -> bool:
    """Whether the person's own memory holds one of these facts: a copy about them made from
    the same words is made from theirs (an identity is the text's, not the person's)."""
    return Fact.objects.filter(scope_key=f"user:{person}", fact_id__in=ids).exists()


def _made_from(ids: set[str]) -> set[str]:
    rows = Proposal.objects.filter(
        Q(*[Q(evidence__contains=[{"id": i}]) for i in ids], _connector=Q.OR)
    ).values_list("evidence", flat=True)
    return {
        str(item["made"])
        for evidence in rows
        for item in evidence
        if isinstance(item, dict) and item.get("id") in ids and item.get("made")
    }
