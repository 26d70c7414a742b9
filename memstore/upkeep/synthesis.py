"""Synthesis ("dreaming"): a model proposes merges, rewrites and retirements over one bot's
store, a second, independent model call must approve each, and approved changes are applied as
ordinary writes (`via=synthesis`, new facts carry `rel=supersedes:<id>`, replaced facts are
archived and restorable).

Every proposal cites its evidence (fact ids and their text as read) and is stored keyed by what
it does (`memstore.upkeep.proposals`), so:

- a proposal citing a fact saved on purpose is refused in code, whatever the models say;
- a rejection by the second opinion changes nothing;
- in report mode approved proposals wait in the console's Proposals page for a person;
- a re-run (after a worker was killed, say) first finishes what the last run left: unverified
  proposals are verified, approved ones applied; it proposes, verifies and applies nothing twice.

Model calls share the learner's daily token budget. What a call quotes passes the outgoing gate
(`memstore.rooms.outgoing`) first, as the room the scope is read in sees it: a person's memory as
their direct room (nothing while they paused memory, nothing on their excluded topics), anything
else as no room (never a hidden, private or withheld fact, nor a private bot's memory); a
proposal whose evidence the gate no longer clears waits unverified.
"""

from dataclasses import dataclass, field
from typing import Literal

from django.conf import settings
from django.utils import timezone

from memstore.errors import InvalidFact
from memstore.facts import markdown
from memstore.facts.records import StoredFact
from memstore.llm.budget import budget_charge, budget_exhausted
from memstore.llm.client import ModelClient, Prompt
from memstore.llm.config import learner_config
from memstore.models import Proposal
from memstore.rooms.outgoing import outgoing, outgoing_said, upkeep_audience
from memstore.upkeep.guard import fact_protected
from memstore.upkeep.prompts import synthesis_parse, synthesis_prompt, verify_parse, verify_prompt
from memstore.upkeep.proposals import (
    fact_refs,
    proposal_apply,
    proposal_evidence,
    proposal_key,
    proposal_record,
)
from memstore.upkeep.store import bot_store_shards, store_facts

ORIGIN = "synthesis"
PROPOSE_TOKENS = 800
VERIFY_TOKENS = 120
PER_CALL = 10  # proposals asked for per scope


@dataclass
class SynthesisReport:
    """What one synthesis pass did."""

    bot: str
    mode: str
    proposed: int = 0
    approved: int = 0
    rejected: int = 0
    applied: int = 0
    calls: int = 0
    tokens: int = 0
    notes: list[str] = field(default_factory=list)


class _Budget(Exception):
    pass


def synthesis_run(
    *, bot: str, mode: Literal["report", "write"], client: ModelClient
) -> SynthesisReport:
    """One synthesis pass over a bot's store: finish what an earlier pass left, then propose,
    verify and (in write mode) apply."""
    report = SynthesisReport(bot=bot, mode=mode)
    try:
        _finish(bot, mode, client, report)
        facts = store_facts(shards=bot_store_shards(bot))
        by_scope: dict[str, list[StoredFact]] = {}
        for fact in facts:
            by_scope.setdefault(fact.scope, []).append(fact)
        for scope in sorted(by_scope):
            for proposal in _propose(bot, by_scope[scope], client, report):
                _verify(proposal, client, report)
                _settle(proposal, mode, report)
    except _Budget as stop:
        report.notes.append(str(stop))
    return report


def _finish(bot: str, mode: str, client: ModelClient, report: SynthesisReport) -> None:
    # Left by a pass that stopped: proposals never verified, and approvals never applied.
    waiting = Proposal.objects.filter(origin=ORIGIN, bot=bot)
    for proposal in waiting.filter(status=Proposal.PROPOSED, verdict="").order_by("pk"):
        _verify(proposal, client, report)
        _settle(proposal, mode, report)
    for proposal in waiting.filter(status=Proposal.APPROVED).order_by("pk"):
        _settle(proposal, mode, report)


def _call(client: ModelClient, prompt: Prompt, max_tokens: int, report: SynthesisReport) -> str:
    if message := budget_exhausted(daily_tokens=learner_config().daily_tokens):
        raise _Budget(message)
    completion = client.complete(prompt, max_tokens=max_tokens)
    budget_charge(tokens=completion.tokens)
    report.calls += 1
    report.tokens += completion.tokens
    return completion.text


def _propose(
    bot: str, facts: list[StoredFact], client: ModelClient, report: SynthesisReport
) -> list[Proposal]:
    cleared = outgoing(facts, ctx=upkeep_audience(bot=bot, scope=facts[0].scope))
    shown = sorted(cleared.facts, key=lambda f: -f.rank)[: int(settings.SYNTHESIS_MAX_FACTS)]
    if len(shown) < 2:
        return []
    by_id = {f.fact_id: f for f in shown}
    prompt = synthesis_prompt(
        [(f.fact_id, f.day.isoformat(), f.text) for f in shown], limit=PER_CALL, sent=cleared
    )
    created = []
    for item in synthesis_parse(
        _call(client, prompt, PROPOSE_TOKENS, report), set(by_id), limit=PER_CALL
    ):
        evidence = [by_id[i] for i in item.ids]
        action = item.action
        key = proposal_key(
            origin=ORIGIN, action=action, bot=bot, facts=fact_refs(evidence), text=item.text
        )
        if Proposal.objects.filter(key=key).exists():
            continue  # proposed before (this pass was re-run): nothing twice
        refusal = _refusal(evidence, item.text)
        proposal, new = proposal_record(
            origin=ORIGIN,
            action=action,
            bot=bot,
            evidence=evidence,
            text=item.text,
            reason=item.why,
            verdict=f"refused: {refusal}" if refusal else "",
            status=Proposal.REJECTED if refusal else Proposal.PROPOSED,
        )
        if new:
            report.proposed += 1
            if refusal:
                report.rejected += 1
            else:
                created.append(proposal)
    return created


def _refusal(evidence: list[StoredFact], text: str) -> str:
    # Enforced here, whatever the models say: facts saved on purpose are never replaced.
    if any(fact_protected(f.meta) for f in evidence):
        return "it would replace a fact saved on purpose"
    if text:
        try:
            markdown.clean_text(text)
        except InvalidFact as error:
            return error.message
    return ""


def _verify(proposal: Proposal, client: ModelClient, report: SynthesisReport) -> None:
    facts = proposal_evidence(proposal)
    audience = upkeep_audience(bot=proposal.bot, scope=proposal.scope_key)
    cleared = outgoing(facts, ctx=audience) + outgoing_said([proposal.text], ctx=audience)
    if len(cleared.facts) < len(proposal.evidence) or cleared.said != (proposal.text,):
        # Gone, or no longer to be sent (a pause, a new excluded topic): asked again later.
        report.notes.append(f"proposal {proposal.pk} not verified: its evidence is withheld")
        return
    evidence = [(f.fact_id, f.day.isoformat(), f.text) for f in cleared.facts]
    prompt = verify_prompt(
        action=proposal.action, evidence=evidence, text=proposal.text, sent=cleared
    )
    approval = verify_parse(_call(client, prompt, VERIFY_TOKENS, report))
    proposal.verdict = f"{'approve' if approval.approved else 'reject'} - {approval.why}".strip(
        " -"
    )
    proposal.status = Proposal.APPROVED if approval.approved else Proposal.REJECTED
    if not approval.approved:
        proposal.decided_at = timezone.now()
        report.rejected += 1
    else:
        report.approved += 1
    proposal.save(update_fields=["verdict", "status", "decided_at"])


def _settle(proposal: Proposal, mode: str, report: SynthesisReport) -> None:
    # Approved: applied in write mode; in report mode it waits for a person in the inbox.
    if proposal.status != Proposal.APPROVED:
        return
    if mode == "write":
        proposal_apply(proposal=proposal, automatic=True, by="synthesis", via="synthesis")
        report.applied += proposal.status == Proposal.APPLIED
    else:
        Proposal.objects.filter(pk=proposal.pk).update(status=Proposal.PROPOSED)
        proposal.status = Proposal.PROPOSED
