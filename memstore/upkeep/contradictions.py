"""Contradictions in a store: candidate pairs (same scope, alike in meaning or words, yet not
duplicates; or anywhere in the store, any scope and tier, about one subject with different
values: `memstore.upkeep.pairs.alike_by_subject`) are judged by the model in batches; a conflict becomes a `supersede` proposal (the
newer fact supersedes the older). A pair is judged once: its verdict is kept as a proposal
(a compatible pair as a rejected one), so a re-run asks the model nothing new about it.

Model calls share the learner's daily token budget and stop when it is spent. Only pairs whose
two facts pass the outgoing gate (`memstore.rooms.outgoing`, each scope as the room it is read
in) are asked about; the others wait unjudged.
"""

import re
from dataclasses import dataclass

import numpy as np
from django.conf import settings

from memstore.facts.records import StoredFact
from memstore.llm.budget import budget_charge, budget_exhausted
from memstore.llm.client import ModelClient
from memstore.llm.config import learner_config
from memstore.models import Proposal
from memstore.rooms.outgoing import Cleared, outgoing, upkeep_audience
from memstore.upkeep.duplicates import body_of, contained, similar_pairs, values, words
from memstore.upkeep.pairs import Scored, alike_by_subject, unique_facts
from memstore.upkeep.prompts import contradiction_parse, contradiction_prompt
from memstore.upkeep.proposals import fact_refs, proposal_key, proposal_record

ORIGIN = "contradiction"
COSINE_FLOOR = 0.80  # same subject by meaning
WORDS_FLOOR = 0.30  # same subject by words
BATCH = 10
KEY_WINDOW = 2_000  # candidate pairs whose verdicts are looked up at once
MAX_TOKENS = 400
_VALUED = re.compile(r"\d|\s[A-Z]")


@dataclass
class Judged:
    """What one contradiction pass did: calls, tokens, new conflicts, and whether the budget
    (or the per-run pair cap) stopped it early."""

    calls: int = 0
    tokens: int = 0
    conflicts: list[Proposal] | None = None
    stopped: str = ""


def candidates(
    facts: list[StoredFact],
    vectors: dict[str, np.ndarray] | None,
    *,
    bot: str,
    scored: list[Scored] | None = None,
    limit: int | None = None,
) -> list[tuple[StoredFact, StoredFact]]:
    """Up to `limit` (UPKEEP_MAX_PAIRS) pairs about the same subject that are not certain
    duplicates and were never judged, most alike first, as (older, newer): alike in one scope,
    or about one subject anywhere in the store (`subject_pairs`). `scored`: candidate pairs
    already found at floors no higher than this module's."""
    limit = limit or int(settings.UPKEEP_MAX_PAIRS)
    if scored is None:
        scored = similar_pairs(facts, vectors, floors=(COSINE_FLOOR, WORDS_FLOOR))
    scored = [*scored, *subject_pairs(facts)]
    floor = {"meaning": COSINE_FLOOR, "words": WORDS_FLOOR, "subject": 0.0}
    scored = [
        s
        for s in scored
        if s[2] >= floor[s[3]] and not contained(body_of(s[0].text), body_of(s[1].text))
    ]
    scored.sort(key=lambda s: (-s[2], s[0].fact_id, s[1].fact_id))
    found: list[tuple[StoredFact, StoredFact]] = []
    # Judged pairs are looked up a window at a time: a large store's first windows are
    # judged after a few passes, and a pass needs only `limit` new ones.
    for start in range(0, len(scored), KEY_WINDOW):
        pairs = [_ordered(a, b) for a, b, _, _ in scored[start : start + KEY_WINDOW]]
        keys = {_key(bot, older, newer): (older, newer) for older, newer in pairs}
        judged = set(Proposal.objects.filter(key__in=list(keys)).values_list("key", flat=True))
        found += [pair for key, pair in keys.items() if key not in judged]
        if len(found) > limit:
            break
    return found


def subject_pairs(facts: list[StoredFact]) -> list[Scored]:
    """Pairs about one subject with different values across the whole store: every scope (a
    person's memory beside a project's) and every tier (the profile beside a month's log)."""
    by_scope: dict[str, list[StoredFact]] = {}
    for fact in facts:
        by_scope.setdefault(fact.scope, []).append(fact)
    # Only a fact that may hold a value (a digit, a capital past the first word) can be in a
    # pair: the rest are never read further (most of a large store).
    store = [
        f for group in by_scope.values() for f in unique_facts(group) if _VALUED.search(f.text)
    ]
    bodies = [body_of(f.text) for f in store]
    return alike_by_subject(store, [words(b) for b in bodies], [values(b) for b in bodies])


def contradictions_judge(
    *, bot: str, pairs: list[tuple[StoredFact, StoredFact]], client: ModelClient
) -> Judged:
    """Ask the model about these pairs in batches; record each verdict as a proposal."""
    config = learner_config()
    limit = int(settings.UPKEEP_MAX_PAIRS)
    done = Judged(conflicts=[])
    pairs, sent = _cleared_pairs(bot, pairs)
    if len(pairs) > limit:
        pairs, done.stopped = pairs[:limit], f"only the first {limit} candidate pairs this run"
    for start in range(0, len(pairs), BATCH):
        if message := budget_exhausted(daily_tokens=config.daily_tokens):
            done.stopped = message
            break
        batch = pairs[start : start + BATCH]
        prompt = contradiction_prompt(
            [((o.day.isoformat(), o.body), (n.day.isoformat(), n.body)) for o, n in batch],
            sent=sent,
        )
        completion = client.complete(prompt, max_tokens=MAX_TOKENS)
        budget_charge(tokens=completion.tokens)
        done.calls += 1
        done.tokens += completion.tokens
        for n, verdict in contradiction_parse(completion.text, len(batch)).items():
            older, newer = batch[n - 1]
            proposal, created = proposal_record(
                origin=ORIGIN,
                action="supersede",
                bot=bot,
                evidence=[older, newer],
                reason=verdict.why or "the model found no conflict",
                status=Proposal.PROPOSED if verdict.conflict else Proposal.REJECTED,
            )
            if created and verdict.conflict:
                done.conflicts.append(proposal)
    return done


def _cleared_pairs(
    bot: str, pairs: list[tuple[StoredFact, StoredFact]]
) -> tuple[list[tuple[StoredFact, StoredFact]], Cleared]:
    """The pairs whose facts both pass the gate, and what passed (one gate call a scope)."""
    by_scope: dict[str, list[StoredFact]] = {}
    for pair in pairs:
        for fact in pair:
            by_scope.setdefault(fact.scope, []).append(fact)
    sent = outgoing([], ctx=None)
    for scope, facts in by_scope.items():
        sent += outgoing(facts, ctx=upkeep_audience(bot=bot, scope=scope))
    passed = {(f.scope, f.fact_id, f.shard_bot) for f in sent.facts}
    kept = [
        (a, b)
        for a, b in pairs
        if (a.scope, a.fact_id, a.shard_bot) in passed
        and (b.scope, b.fact_id, b.shard_bot) in passed
    ]
    return kept, sent


def _ordered(a: StoredFact, b: StoredFact) -> tuple[StoredFact, StoredFact]:
    return (a, b) if (a.day, a.fact_id) <= (b.day, b.fact_id) else (b, a)


def _key(bot: str, older: StoredFact, newer: StoredFact) -> str:
    return proposal_key(origin=ORIGIN, action="supersede", bot=bot, facts=fact_refs([older, newer]))
