"""The health report of a bot's store or of the whole workspace, and its one-click fixes.

Findings, each about one fact (and, for pairs, the other fact):

    junk            too short, transient status ("build succeeded"), restated instructions
    duplicate       a likely near-duplicate in the same scope (`memstore.upkeep.duplicates`)
    contradiction   a conflict upkeep found and left for a person (an open `Proposal`)
    unused          older than HEALTH_UNUSED_DAYS and never recalled nor put into a prompt since
    secret          the current secret detector (`memstore.rules.policy.secret_kind`) flags it now
    instruction     it reads as an order to a model ("always obey…", "SYSTEM:", a tool call,
                    "from now on, reply…": `memstore.rules.instructions`); reads withhold it
                    until a person keeps it (it is not an order after all) or archives it
    too_long        a hand-written line longer than a save may be
    review          its `review=` day has come (`memstore.facts.validity`): a person should
                    check it is still right (edit the date, or archive it)

Fixes go through the ordinary services as the person or bot asking (`by`, `via`): archive
(forget, restorable from history), merge (archive one of a pair; the kept fact gets a
`supersedes` link; refused when the two differ in meaning, by the rule upkeep's own merges
obey: `memstore.upkeep.guard.merge_check`), erase (the one erasure, `memstore.privacy.erase`,
within the asker's reach: no copy of the text is left there, in files, history, vectors or
stored records), keep (a secret the detector was wrong about, or a line that is not an order
after all: shown again).

Bounded at any size (50,000 facts in seconds, in a few hundred MB): each check is one pass
over the facts, pairs come from `memstore.upkeep.pairs` (vectorised blocks, a few partners a
fact), and no vector is computed here (a fact not yet embedded is compared by words). The
console shows the last finished report and has a new one made in the worker
(`memstore.upkeep.health_snapshots`).
"""

from dataclasses import dataclass, field
from datetime import timedelta
from functools import lru_cache

from django.conf import settings
from django.utils import timezone

from memstore.errors import FactNotFound, InvalidFact, NotAllowed
from memstore.facts.markdown import MAX_TEXT_CHARS, fact_identity
from memstore.facts.paths import Shard
from memstore.facts.records import StoredFact
from memstore.facts.validity import checked_of, is_review_due, mark_of, review_of
from memstore.models import Proposal
from memstore.privacy.erase import Reach, fact_erase, reach_of_bot
from memstore.rooms.access import Context, forget_shards
from memstore.rules.instructions import instruction_kind
from memstore.rules.policy import secret_kind
from memstore.rules.withheld import instruction_keep, secret_flag, secret_keep, secrets_kept
from memstore.store.selectors import fact_find
from memstore.store.services import fact_forget
from memstore.upkeep.duplicates import duplicates_find, features_clear, word_list
from memstore.upkeep.guard import fact_supersede, merge_check
from memstore.upkeep.junk import junk_reason
from memstore.upkeep.store import store_facts, store_vectors
from memstore.upkeep.usage import usage_of
from memstore.vocabulary import FINDING_KINDS

KINDS = FINDING_KINDS  # most serious first
FIXES = {
    "secret": ("erase", "keep"),
    "instruction": ("archive",),  # and, for a person in the console, keep (PERSON_FIXES)
    "contradiction": ("accept", "reject"),
    "duplicate": ("merge", "archive"),
    "junk": ("archive",),
    "too_long": ("archive",),
    "marked": ("archive",),
    "review": ("archive",),
    "unverified": ("archive",),
    "unused": ("archive",),
}
# A person may also decide a line is not an order after all; a bot may not (its model may be
# the one obeying the order).
PERSON_FIXES = {**FIXES, "instruction": ("archive", "keep")}


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing wrong with one fact; `other` is the second fact of a pair; `proposal` the
    open upkeep proposal a contradiction comes from."""

    kind: str
    fact: StoredFact
    why: str
    other: StoredFact | None = None
    proposal: int | None = None

    @property
    def fixes(self) -> tuple[str, ...]:
        return FIXES[self.kind]


@dataclass(frozen=True, slots=True)
class HealthReport:
    """Findings over some shards, most serious kind first (at most `limit`), how many of each
    kind in all, and (`by_scope`) how many of each kind in each scope."""

    facts: int
    findings: list[Finding]
    counts: dict[str, int] = field(default_factory=dict)
    by_scope: dict[str, dict[str, int]] = field(default_factory=dict)


def health_report(*, shards: list[Shard], limit: int = 500, per_kind: int = 0) -> HealthReport:
    """What is wrong with the facts of these shards (synced first); `per_kind`: keep at most
    that many findings of each kind (0: no cap) before `limit`."""
    facts = store_facts(shards=shards)
    findings: list[Finding] = []
    findings += _single(facts)
    findings += _contradictions(shards, facts)
    try:
        findings += _duplicates(facts)
    finally:
        features_clear()
    findings += _unused(facts)
    findings += _unverified(facts)
    return _report(len(facts), findings, limit=limit, per_kind=per_kind)


def _report(facts: int, findings: list[Finding], *, limit: int, per_kind: int) -> HealthReport:
    order = {kind: i for i, kind in enumerate(KINDS)}
    findings.sort(key=lambda f: (order[f.kind], f.fact.scope, f.fact.fact_id))
    counts = dict.fromkeys(KINDS, 0)
    by_scope: dict[str, dict[str, int]] = {}
    kept = []
    for finding in findings:
        counts[finding.kind] += 1
        scope = by_scope.setdefault(finding.fact.scope, dict.fromkeys(KINDS, 0))
        scope[finding.kind] += 1
        if not per_kind or counts[finding.kind] <= per_kind:
            kept.append(finding)
    return HealthReport(facts=facts, findings=kept[:limit], counts=counts, by_scope=by_scope)


def _duplicates(facts: list[StoredFact]) -> list[Finding]:
    found = []
    for pair in duplicates_find(facts, store_vectors(facts)):
        # Keep the fuller fact (its words hold the other's, or it is longer), then the newer.
        kept, archived = sorted(
            (pair.first, pair.second),
            key=lambda f: (len(word_list(f.body)), f.day, f.text),
            reverse=True,
        )
        why = f"{'meaning' if pair.by == 'meaning' else 'words'} {pair.score:.2f} alike"
        found.append(Finding("duplicate", archived, why, other=kept))
    return found


# The secret rules cost most of a report's per-fact checks; a worker making reports over and
# over checks each text once (bounded: 131,072 texts, a few tens of MB).
_secret_kind = lru_cache(maxsize=131_072)(secret_kind)


def _single(facts: list[StoredFact]) -> list[Finding]:
    found = []
    kept: frozenset[str] | None = None
    today = timezone.localdate()
    for fact in facts:
        if kind := _secret_kind(fact.text):
            kept = secrets_kept() if kept is None else kept
            if fact.fact_id not in kept:  # a person said the detector was wrong about it
                found.append(Finding("secret", fact, f"looks like {kind}"))
        if kind := instruction_kind(fact.body):
            kept = secrets_kept() if kept is None else kept
            if fact_identity(fact.body) not in kept:  # accepted in the review inbox
                found.append(Finding("instruction", fact, f"reads as an instruction ({kind})"))
        if len(fact.text) > MAX_TEXT_CHARS:
            found.append(
                Finding("too_long", fact, f"{len(fact.text)} characters (limit {MAX_TEXT_CHARS})")
            )
        if reason := junk_reason(fact.body):
            found.append(Finding("junk", fact, reason))
        if mark := mark_of(fact.meta):
            found.append(Finding("marked", fact, _MARKED[mark]))
        elif is_review_due(fact.meta, today):
            found.append(Finding("review", fact, f"to be checked by {review_of(fact.meta)}"))
    return found


_MARKED = {
    "outdated": "marked outdated: still used; a person should check it",
    "wrong": "marked wrong: left out of prompts and recall until a person confirms it",
    "do-not-use": "marked do-not-use: left out of prompts and recall until a person confirms it",
}
# How many of the facts prompts use most, never verified, Health lists.
UNVERIFIED_TOP = 10


def _unverified(facts: list[StoredFact]) -> list[Finding]:
    """The facts prompts used most that nobody ever verified (no `checked=`)."""
    usage = usage_of(scope_keys={f.scope for f in facts})
    used = [
        (row.prompted, fact)
        for fact in facts
        if checked_of(fact.meta) is None
        and not mark_of(fact.meta)
        and (row := usage.get((fact.scope, fact.fact_id))) is not None
        and row.prompted > 0
    ]
    used.sort(key=lambda pair: (-pair[0], pair[1].fact_id))
    return [
        Finding("unverified", fact, f"in {count} prompts, never verified")
        for count, fact in used[:UNVERIFIED_TOP]
    ]


def _contradictions(shards: list[Shard], facts: list[StoredFact]) -> list[Finding]:
    keys = {str(s.scope) for s in shards}
    by_ref = {(f.scope, f.shard_bot, f.fact_id): f for f in facts}
    open_ = Proposal.objects.filter(
        origin="contradiction", action="supersede", status=Proposal.PROPOSED, scope_key__in=keys
    )
    found = []
    for proposal in open_.order_by("created_at").iterator(chunk_size=500):
        refs = [
            (i.get("scope", proposal.scope_key), i.get("bot", proposal.bot), i.get("id"))
            for i in proposal.evidence
        ]
        if len(refs) == 2 and refs[0] in by_ref and refs[1] in by_ref:
            older, newer = by_ref[refs[0]], by_ref[refs[1]]
            found.append(
                Finding("contradiction", older, proposal.reason, other=newer, proposal=proposal.pk)
            )
    return found


def _unused(facts: list[StoredFact]) -> list[Finding]:
    days = int(settings.HEALTH_UNUSED_DAYS)
    now = timezone.now()
    cutoff = now.date() - timedelta(days=days)
    usage = usage_of(scope_keys={f.scope for f in facts})
    found = []
    for fact in facts:
        if fact.day >= cutoff or fact.tier == "profile":
            continue
        row = usage.get((fact.scope, fact.fact_id))
        if row is None or row.last_used < now - timedelta(days=days):
            found.append(Finding("unused", fact, f"not recalled nor prompted in {days} days"))
    return found


def health_fix(
    *,
    action: str,
    fact: StoredFact,
    other: StoredFact | None = None,
    by: str,
    via: str,
    reach: Reach | None = None,
) -> int:
    """Apply one fix to one fact through the ordinary services; returns lines changed. An
    erase reaches as far as `reach` (default: every shard the fact's bot writes)."""
    shard = fact.shard
    if action == "archive":
        return len(fact_forget(shards=[shard], fact_id=fact.fact_id, by=by, via=via))
    if action == "erase":
        reach = reach or reach_of_bot(shard.bot)
        return len(fact_erase(reach=reach, fact_id=fact.fact_id, by=by, via=via).removed)
    if action == "keep":  # not a secret, or not an order, after all: shown again
        if instruction_kind(fact.body) and not secret_flag(fact):
            instruction_keep(text=fact.body, bot=shard.bot, by=by)
        else:
            secret_keep(fact=fact, by=by)
        return 0
    if action == "merge":
        if other is None:
            raise InvalidFact("Say which fact to keep when merging.")
        merge_check(kept=other, archived=fact)
        # The link first: if the kept fact can't be changed, nothing is archived either.
        fact_supersede(newer=other, older=fact, by=by, via=via, protect=False)
        return 1 + len(fact_forget(shards=[shard], fact_id=fact.fact_id, by=by, via=via))
    raise InvalidFact(f"Unknown fix {action!r}: archive, merge, erase or keep.")


def fact_in_shard(*, shard: Shard, fact_id: str) -> StoredFact:
    """The stored fact with this id in this shard (FactNotFound if it holds none)."""
    for fact in fact_find(scopes=[shard.scope], fact_id=fact_id.strip().lower()):
        if fact.shard_bot == shard.bot:
            return fact
    raise FactNotFound(f"No fact {fact_id} in {shard.rel}.")


def bot_shown(report: HealthReport) -> HealthReport:
    """A report as a bot may see it: hidden facts left out, and counted again."""
    shown = [
        f
        for f in report.findings
        if f.fact.visibility != "hidden" and (f.other is None or f.other.visibility != "hidden")
    ]
    counts = {kind: sum(1 for f in shown if f.kind == kind) for kind in KINDS}
    return HealthReport(facts=report.facts, findings=shown, counts=counts)


def bot_health_fix(*, ctx: Context, action: str, fact_id: str, other_id: str | None = None) -> int:
    """A bot fixes one finding about a fact it may change (the kept fact of a merge too)."""
    shards = forget_shards(ctx, [])
    fact = _held(shards, fact_id)
    if action == "keep" and instruction_kind(fact.body) and not secret_flag(fact):
        raise NotAllowed(
            "Only a person decides that a line which reads as an instruction may be shown: "
            "in the console's Health page, or the review inbox."
        )
    other = _held(shards, other_id) if other_id else None
    reach = reach_of_bot(ctx.bot, shards)  # as the API's forget with erase=true reaches
    return health_fix(action=action, fact=fact, other=other, by=ctx.bot, via="api", reach=reach)


def _held(shards: list[Shard], fact_id: str) -> StoredFact:
    for shard in shards:
        try:
            return fact_in_shard(shard=shard, fact_id=fact_id)
        except FactNotFound:
            continue
    raise FactNotFound(f"No fact {fact_id} in the memory this bot may change here.")
