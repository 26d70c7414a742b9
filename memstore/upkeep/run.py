"""One upkeep pass over one bot's store (every shard the bot writes):

1. near-duplicates alike enough to be certain: the machine-made copy is archived and the kept
   fact gets a `supersedes` link (when both are machine-made, the newer is kept);
2. contradictions (with a model configured): candidate pairs judged by the model; the newer
   supersedes the older, which is archived if machine-made, else left to a person;
3. stale learned facts: archived.

`mode="write"` applies what the guard allows; `mode="report"` only records proposals for the
console's Proposals page. Every change is an ordinary write (`via=upkeep`), restorable from
history, and never touches a fact saved on purpose (`memstore.upkeep.guard`). A re-run finds
its earlier proposals by key and repeats nothing.
"""

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from django.utils import timezone

from memstore.facts.records import StoredFact
from memstore.llm.client import ModelClient
from memstore.models import Proposal
from memstore.upkeep.contradictions import candidates, contradictions_judge
from memstore.upkeep.duplicates import duplicates_find, word_list
from memstore.upkeep.guard import fact_protected
from memstore.upkeep.proposals import proposal_apply, proposal_record
from memstore.upkeep.stale import stale_facts
from memstore.upkeep.store import bot_store_shards, store_facts, store_vectors
from memstore.upkeep.usage import usage_of

Mode = Literal["report", "write"]
BY = "upkeep"
ORIGINS = ("duplicate", "contradiction", "stale")


@dataclass
class UpkeepReport:
    """What one pass looked at, proposed and applied."""

    bot: str
    mode: str
    facts: int = 0
    duplicates: int = 0
    contradictions: int = 0
    stale: int = 0
    applied: int = 0
    left_for_people: int = 0
    model_calls: int = 0
    tokens: int = 0
    notes: list[str] = field(default_factory=list)


def upkeep_run(
    *,
    bot: str,
    mode: Mode = "report",
    client: ModelClient | None = None,
    now: datetime | None = None,
) -> UpkeepReport:
    """One upkeep pass over a bot's store."""
    now = now or timezone.now()
    report = UpkeepReport(bot=bot, mode=mode)
    facts = store_facts(shards=bot_store_shards(bot))
    report.facts = len(facts)
    vectors = store_vectors(facts)
    proposals: list[Proposal] = []
    for pair in duplicates_find(facts, vectors):
        if pair.certain and (
            found := _duplicate(bot, pair.first, pair.second, pair.score, pair.by)
        ):
            proposals.append(found)
            report.duplicates += 1
    if client is not None:
        judged = contradictions_judge(bot=bot, pairs=candidates(facts, vectors), client=client)
        report.model_calls, report.tokens = judged.calls, judged.tokens
        report.contradictions = len(judged.conflicts or [])
        proposals += judged.conflicts or []
        if judged.stopped:
            report.notes.append(f"Contradictions: {judged.stopped}.")
    else:
        report.notes.append("Contradictions: skipped, no model is configured.")
    usage = usage_of(scope_keys={f.scope for f in facts})
    for fact in stale_facts(facts, usage, now=now):
        days = (now.date() - fact.day).days
        proposal, created = proposal_record(
            origin="stale",
            action="retire",
            bot=bot,
            evidence=[fact],
            reason=f"Learned {days} days ago, low importance, not recalled or prompted since.",
        )
        if created:
            proposals.append(proposal)
            report.stale += 1
    if mode == "write":
        # Open proposals of earlier passes too (a report-mode pass, or a pass that stopped).
        open_ = Proposal.objects.filter(bot=bot, status=Proposal.PROPOSED, origin__in=ORIGINS)
        for proposal in open_.order_by("pk"):
            if _automatic(proposal, facts):
                proposal_apply(proposal=proposal, automatic=True, by=BY, via="upkeep")
                report.applied += proposal.status == Proposal.APPLIED
    report.left_for_people = Proposal.objects.filter(bot=bot, status=Proposal.PROPOSED).count()
    return report


def _duplicate(bot: str, a: StoredFact, b: StoredFact, score: float, by: str) -> Proposal | None:
    # The fact whose words are all in the other's is archived, so nothing it says is lost; if
    # it was saved on purpose, the pair is left to a person (the health report shows it).
    wa, wb = Counter(word_list(a.body)), Counter(word_list(b.body))
    if wa == wb:  # the same words: a machine-made copy goes first, then the older
        archived, kept = sorted((a, b), key=lambda f: (fact_protected(f.meta), f.day, f.fact_id))
    else:
        archived, kept = (a, b) if wa <= wb else (b, a)
    if fact_protected(archived.meta):
        return None
    proposal, created = proposal_record(
        origin="duplicate",
        action="supersede",
        bot=bot,
        evidence=[archived, kept],
        reason=f"Duplicate ({by} {score:.2f} alike): every word of it is in the kept fact.",
    )
    return proposal if created else None


def _automatic(proposal: Proposal, facts: list[StoredFact]) -> bool:
    # Applied without a person only when the fact it archives is machine-made.
    meta = {f.fact_id: f.meta for f in facts}
    archived = proposal.evidence[0]["id"]
    return archived in meta and not fact_protected(meta[archived])
