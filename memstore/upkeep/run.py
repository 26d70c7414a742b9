"""One upkeep pass over one bot's store (every shard the bot writes):

1. near-duplicates alike enough to be certain: the machine-made copy is archived and the kept
   fact gets a `supersedes` link (when both are machine-made, the newer is kept);
2. contradictions (with a model configured): candidate pairs judged by the model; the newer
   supersedes the older, which is archived if machine-made, else left to a person;
3. stale learned facts: archived.

`mode="write"` applies what the guard allows; `mode="report"` only records proposals for the
console's Proposals page. Every change is an ordinary write (`via=upkeep`), restorable from
history, and never touches a fact saved on purpose (`memstore.upkeep.guard`). A re-run finds
its earlier proposals by key (bot, and each fact's scope, shard and identity) and repeats
nothing.

Bounded at any size: one candidate search (`memstore.upkeep.pairs`: vectorised blocks, a few
partners a fact) serves duplicates and contradictions; proposals are stored a chunk per
statement; at most EMBED_PER_PASS missing vectors are computed (the rest wait for the
background embedding and are compared by words meanwhile).
"""

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from django.utils import timezone

from memstore.facts.records import StoredFact
from memstore.llm.client import ModelClient
from memstore.models import Proposal
from memstore.upkeep.contradictions import (
    COSINE_FLOOR,
    WORDS_FLOOR,
    candidates,
    contradictions_judge,
)
from memstore.upkeep.duplicates import (
    duplicates_find,
    features_clear,
    similar_pairs,
    thresholds,
    word_list,
)
from memstore.upkeep.guard import fact_protected
from memstore.upkeep.proposals import proposal_apply, proposal_new, proposals_record
from memstore.upkeep.stale import stale_facts
from memstore.upkeep.store import bot_store_shards, store_facts, store_vectors
from memstore.upkeep.usage import usage_of

Mode = Literal["report", "write"]
BY = "upkeep"
ORIGINS = ("duplicate", "contradiction", "stale")
EMBED_PER_PASS = 2_000  # missing vectors a pass computes; facts beyond are compared by words


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
    try:
        return _pass(bot=bot, mode=mode, client=client, now=now or timezone.now())
    finally:
        features_clear()


def _pass(*, bot: str, mode: Mode, client: ModelClient | None, now: datetime) -> UpkeepReport:
    report = UpkeepReport(bot=bot, mode=mode)
    facts = store_facts(shards=bot_store_shards(bot))
    report.facts = len(facts)
    vectors = store_vectors(facts, compute=EMBED_PER_PASS)
    # One candidate search serves duplicates and contradictions (its floors are the lower).
    floors = (min(COSINE_FLOOR, thresholds("meaning")), min(WORDS_FLOOR, thresholds("words")))
    scored = similar_pairs(facts, vectors, floors=floors)
    duplicates = [
        found
        for pair in duplicates_find(facts, scored=scored)
        if pair.certain and (found := _duplicate(bot, pair.first, pair.second, pair.score, pair.by))
    ]
    report.duplicates = len(proposals_record(duplicates))
    if client is not None:
        pairs = candidates(facts, vectors, bot=bot, scored=scored)
        judged = contradictions_judge(bot=bot, pairs=pairs, client=client)
        report.model_calls, report.tokens = judged.calls, judged.tokens
        report.contradictions = len(judged.conflicts or [])
        if judged.stopped:
            report.notes.append(f"Contradictions: {judged.stopped}.")
    else:
        report.notes.append("Contradictions: skipped, no model is configured.")
    del scored
    report.stale = len(proposals_record(_stale(bot, facts, now)))
    if mode == "write":
        report.applied = _apply_open(bot, facts)
    report.left_for_people = Proposal.objects.filter(bot=bot, status=Proposal.PROPOSED).count()
    return report


def _stale(bot: str, facts: list[StoredFact], now: datetime) -> list[Proposal]:
    usage = usage_of(scope_keys={f.scope for f in facts})
    return [
        proposal_new(
            origin="stale",
            action="retire",
            bot=bot,
            evidence=[fact],
            reason=f"Learned {(now.date() - fact.day).days} days ago, low importance, "
            "not recalled or prompted since.",
        )
        for fact in stale_facts(facts, usage, now=now)
    ]


def _apply_open(bot: str, facts: list[StoredFact]) -> int:
    # Open proposals of earlier passes too (a report-mode pass, or a pass that stopped).
    # Applied without a person only when the fact it archives is machine-made.
    meta = {(f.scope, f.shard_bot, f.fact_id): f.meta for f in facts}
    applied = 0
    open_ = Proposal.objects.filter(bot=bot, status=Proposal.PROPOSED, origin__in=ORIGINS)
    for proposal in open_.order_by("pk").iterator(chunk_size=500):
        first = proposal.evidence[0]
        archived = meta.get((first["scope"], first["bot"], first["id"]))
        if archived is not None and not fact_protected(archived):
            proposal_apply(proposal=proposal, automatic=True, by=BY, via="upkeep")
            applied += proposal.status == Proposal.APPLIED
    return applied


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
    return proposal_new(
        origin="duplicate",
        action="supersede",
        bot=bot,
        evidence=[archived, kept],
        reason=f"Duplicate ({by} {score:.2f} alike): every word of it is in the kept fact.",
    )
