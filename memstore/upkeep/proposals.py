"""Proposed changes to a store (from upkeep's contradictions and from synthesis), and applying
them as ordinary writes.

    supersede  evidence [older, newer]: newer gets `rel=supersedes:<older>`, older is archived
    merge      evidence [facts...], text: one new fact (via=synthesis, supersedes each) replaces them
    rewrite    evidence [fact], text: the same, for one fact
    retire     evidence [fact]: archived
    note       text: a bot's new About me note (lessons for agents, `memstore.prompt.lessons`,
               which applies it: never automatically, only when an editor accepts it)
    save       text: a save the gate held (`memstore.store.held`: instruction-shaped text that
               came in through a door), written as it would have been once a person accepts
               it, never automatically; accepting it records that the text was accepted
               (`memstore.rules.withheld.instruction_keep`), so reads show it

Applied automatically (`automatic=True`: upkeep, or synthesis after its second opinion), every
fact it would change or archive goes through `memstore.upkeep.guard`, so a fact saved on purpose
is never touched; accepted by a person, the person decides and the ordinary services apply it.
Applying is idempotent: the new fact is saved by identity (a re-run finds it), a fact already
archived counts as archived, and the proposal is marked applied last.
"""

import hashlib
import json
from datetime import date

from django.db import transaction
from django.utils import timezone

from memstore.errors import FactNotFound, FactProtected, InvalidFact
from memstore.facts.derived import derived_meta
from memstore.facts.paths import Scope
from memstore.facts.records import StoredFact
from memstore.models import Proposal
from memstore.rules.withheld import instruction_keep
from memstore.store.selectors import fact_find
from memstore.store.services import fact_forget, fact_remember
from memstore.upkeep.guard import fact_archive, fact_protected, fact_supersede, merge_check

ACTIONS = ("supersede", "merge", "rewrite", "retire", "note", "save")


def proposal_key(
    *, origin: str, action: str, bot: str, facts: list[tuple[str, str, str]], text: str = ""
) -> str:
    """The identity of a proposal: the same change by one bot to the same facts, each named by
    (scope, shard bot, fact id), is proposed once. Not by fact id alone: that is the text's
    identity, so bot B's copy of a text bot A also holds would share A's proposal and be
    skipped."""
    payload = json.dumps(
        [origin, action, bot, sorted(map(list, facts)), " ".join(text.lower().split())]
    )
    return hashlib.sha1(payload.encode()).hexdigest()


def fact_refs(facts: list[StoredFact]) -> list[tuple[str, str, str]]:
    """(scope, shard bot, fact id) of each fact: what a proposal key names."""
    return [(f.scope, f.shard_bot, f.fact_id) for f in facts]


def proposal_new(
    *,
    origin: str,
    action: str,
    bot: str,
    evidence: list[StoredFact],
    text: str = "",
    reason: str = "",
    verdict: str = "",
    status: str = Proposal.PROPOSED,
    made: dict[str, str] | None = None,
) -> Proposal:
    """A proposal, not yet stored, with its key. `made`: the text it would write from each
    cited fact (by id), kept beside it in the evidence so an erase of the fact finds it."""
    if action not in ACTIONS:
        raise InvalidFact(f"Unknown proposal action {action!r}.")
    return Proposal(
        key=proposal_key(
            origin=origin, action=action, bot=bot, facts=fact_refs(evidence), text=text
        ),
        origin=origin,
        action=action,
        bot=bot,
        scope_key=evidence[0].scope,
        evidence=[
            {
                "id": f.fact_id,
                "text": f.text,
                "day": f.day.isoformat(),
                "bot": f.shard_bot,
                "scope": f.scope,
            }
            | ({"made": made[f.fact_id]} if made and f.fact_id in made else {})
            for f in evidence
        ],
        text=text,
        reason=reason,
        verdict=verdict,
        status=status,
    )


def proposal_record(**fields) -> tuple[Proposal, bool]:
    """Store a proposal (the fields of `proposal_new`) unless the same one exists;
    (proposal, created)."""
    new = proposal_new(**fields)
    values = {f.attname: getattr(new, f.attname) for f in Proposal._meta.concrete_fields}
    values = {k: v for k, v in values.items() if k not in ("id", "key", "created_at")}
    return Proposal.objects.get_or_create(key=new.key, defaults=values)


def proposals_record(proposals: list[Proposal], *, chunk: int = 2_000) -> list[Proposal]:
    """Store the proposals whose key is new, a chunk per statement; returns those stored (a
    large pass, thousands of stale facts, costs a few statements, not one per fact)."""
    stored: list[Proposal] = []
    for start in range(0, len(proposals), chunk):
        batch = {p.key: p for p in proposals[start : start + chunk]}
        known = set(Proposal.objects.filter(key__in=list(batch)).values_list("key", flat=True))
        fresh = [p for key, p in batch.items() if key not in known]
        # A concurrent pass may store the same key meanwhile: that one stands.
        Proposal.objects.bulk_create(fresh, ignore_conflicts=True)
        stored += fresh
    return stored


def proposal_apply(*, proposal: Proposal, automatic: bool, by: str, via: str) -> dict:
    """Apply a proposal's change; mark it applied (or failed, saying why). Returns the result."""
    facts = _evidence(proposal)
    try:
        if automatic and any(
            fact_protected(f.meta) for f in facts if f.fact_id not in _kept(proposal)
        ):
            raise FactProtected("A fact it would change was saved on purpose.")
        result = _APPLY[proposal.action](proposal, facts, automatic=automatic, by=by, via=via)
        status = Proposal.APPLIED
    except (FactProtected, FactNotFound, InvalidFact) as error:
        result, status = {"error": error.message}, Proposal.FAILED
    Proposal.objects.filter(pk=proposal.pk).update(
        status=status, result=result, decided_at=timezone.now()
    )
    proposal.status, proposal.result = status, result
    return result


def proposal_decide(
    *, proposal_id: int, accept: bool, by: str, bots: list[str] | None = None
) -> Proposal:
    """A person accepts (applies) or rejects an open proposal; `bots`: those they may act for."""
    with transaction.atomic():
        proposal = Proposal.objects.select_for_update().filter(pk=proposal_id).first()
        if proposal is None or (bots is not None and proposal.bot not in bots):
            raise FactNotFound("No such proposal.")
        if proposal.status != Proposal.PROPOSED:
            raise InvalidFact(f"This proposal was already {proposal.status}.")
        if not accept:
            proposal.status, proposal.decided_at = Proposal.REJECTED, timezone.now()
            proposal.verdict = (proposal.verdict + f"\nRejected by {by}.").strip()
            proposal.save(update_fields=["status", "decided_at", "verdict"])
            return proposal
    proposal_apply(proposal=proposal, automatic=False, by=by, via="console")
    return proposal


def _kept(proposal: Proposal) -> set[str]:
    # The newer fact of a supersede is only linked, and only if machine-made (the guard checks).
    return {proposal.evidence[1]["id"]} if proposal.action == "supersede" else set()


def proposal_evidence(proposal: Proposal) -> list[StoredFact]:
    """The facts a proposal cites as they stand now (one left out when it is gone)."""
    return _evidence(proposal)


def _evidence(proposal: Proposal) -> list[StoredFact]:
    facts = []
    for item in proposal.evidence:
        copies = [
            f
            for f in fact_find(scopes=[Scope.parse(item["scope"])], fact_id=item["id"])
            if f.shard_bot == item["bot"]
        ]
        if copies:
            facts.append(max(copies, key=lambda f: f.day))
    return facts


def _archive(fact: StoredFact, *, automatic: bool, by: str, via: str) -> bool:
    try:
        if automatic:
            fact_archive(fact=fact, by=by, via=via)
        else:
            fact_forget(shards=[fact.shard], fact_id=fact.fact_id, by=by, via=via)
    except FactNotFound:
        return False  # archived already (a re-run), or removed by someone meanwhile
    return True


def _supersede(proposal, facts, *, automatic, by, via) -> dict:
    ids = [item["id"] for item in proposal.evidence]
    by_id = {f.fact_id: f for f in facts}
    older, newer = by_id.get(ids[0]), by_id.get(ids[1])
    if newer is None:
        raise FactNotFound("The newer fact is gone; nothing to supersede with.")
    linked = False
    if older is not None and proposal.origin == "duplicate":
        merge_check(kept=newer, archived=older)  # recorded before the rule, or under another
    if older is not None:
        linked = fact_supersede(newer=newer, older=older, by=by, via=via, protect=automatic)
    archived = older is not None and _archive(older, automatic=automatic, by=by, via=via)
    return {"linked": linked, "archived": [ids[0]] if archived else []}


def _replace(proposal, facts, *, automatic, by, via) -> dict:
    if not facts:
        raise FactNotFound("None of the facts it would replace is still there.")
    first = facts[0]
    links = ",".join(f"supersedes:{f.fact_id}" for f in facts[:7])
    tier = "profile" if first.tier == "profile" else "log"
    new = fact_remember(
        shard=first.shard,
        text=proposal.text,
        tier=tier,
        meta={"via": "synthesis", "rel": links}
        | derived_meta(sources=[f.fact_id for f in facts[7:]]),  # the rest: `from=`
        by=by,
        via=via,
    )
    archived = [
        f.fact_id
        for f in facts
        if f.fact_id != new.fact_id and _archive(f, automatic=automatic, by=by, via=via)
    ]
    return {"new": new.fact_id, "archived": archived}


def _retire(proposal, facts, *, automatic, by, via) -> dict:
    return {
        "archived": [f.fact_id for f in facts if _archive(f, automatic=automatic, by=by, via=via)]
    }


def _note(proposal, facts, *, automatic, by, via) -> dict:
    # A note is the prompt layer's (memstore.prompt.lessons.lessons_apply), and a person's call.
    raise InvalidFact("An About me proposal is applied only when an editor accepts it.")


def _save(proposal, facts, *, automatic, by, via) -> dict:
    # A held save: only a person accepts it, and then it is written as it came in.
    if automatic:
        raise InvalidFact("A held save is written only when a person accepts it.")
    save = proposal.result.get("save", {})
    instruction_keep(text=proposal.text, bot=proposal.bot, by=by)
    stored = fact_remember(
        shard=Scope.parse(proposal.scope_key).shard(proposal.bot),
        text=proposal.text,
        tier=save.get("tier", "log"),
        day=date.fromisoformat(save["day"]) if save.get("day") else None,
        meta=save.get("meta") or None,
        person=save.get("person") or None,
        by=by,
        via=via,
    )
    return {"save": save, "new": stored.fact_id}


_APPLY = {
    "supersede": _supersede,
    "merge": _replace,
    "rewrite": _replace,
    "retire": _retire,
    "note": _note,
    "save": _save,
}
