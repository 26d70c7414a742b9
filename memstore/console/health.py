"""The console's health pages and proposal inbox: what a person may see of a bot's (or the
workspace's) health report and of upkeep and synthesis proposals, and their one-click fixes,
applied as that person (`by=<username>`, `via=console`) through the ordinary services.

A health page answers at once from the last finished report (`memstore.upkeep.health_snapshots`:
made inline for a small store, by the worker for a large one), one kind and one page of
findings at a time, counted over the scopes this person may see."""

from dataclasses import dataclass
from datetime import datetime

from memstore.console.viewer import Viewer
from memstore.console.writes import shard_erase_reach
from memstore.errors import FactNotFound, NotAllowed
from memstore.facts.paging import Page
from memstore.facts.paths import Scope, Shard
from memstore.models import Proposal
from memstore.prompt.lessons import ORIGIN as LESSONS_ORIGIN
from memstore.prompt.lessons import lessons_apply
from memstore.upkeep.health import KINDS, PERSON_FIXES, Finding, fact_in_shard, health_fix
from memstore.upkeep.health_snapshots import (
    finding_from,
    health_fixed,
    health_key,
    health_state,
)
from memstore.upkeep.proposals import proposal_decide


def _shard(viewer: Viewer, value: str) -> Shard:
    shard = Shard.parse(value)
    if not viewer.may_see(shard.scope):
        raise NotAllowed("That is another person's user memory.")
    return shard


@dataclass(frozen=True, slots=True)
class HealthView:
    """One page of a health report as a person sees it: the facts checked, how many findings
    of each kind (in scopes they may see), this page's findings, when the report was made,
    and whether a newer one is on its way."""

    facts: int
    counts: dict[str, int]
    page: Page[Finding]
    kind: str  # "" for every kind
    finished_at: datetime | None
    seconds: float
    outdated: bool  # the store changed since the report was made
    requested_at: datetime | None  # a new report is being made since
    error: str = ""


def health_view(
    *,
    viewer: Viewer,
    bot: str | None = None,
    kind: str = "",
    offset: int = 0,
    limit: int = 50,
    refresh: bool = False,
) -> HealthView:
    """The last health report of a bot's store, or (bot None) of the workspace, as this person
    sees it: one kind (or all) and one page of its findings."""
    if kind and kind not in KINDS:
        raise FactNotFound(f"No finding kind {kind!r}.")
    state = health_state(key=health_key(bot), refresh=refresh)
    snapshot = state.snapshot
    if snapshot is None:
        empty: Page[Finding] = Page(items=[], total=0, offset=0, limit=limit)
        return HealthView(
            0, dict.fromkeys(KINDS, 0), empty, kind, None, 0.0, False, state.requested_at
        )
    counts = dict.fromkeys(KINDS, 0)
    for scope, per_kind in snapshot.counts.items():
        if _visible(viewer, scope):
            for name, n in per_kind.items():
                counts[name] = counts.get(name, 0) + n
    decided = _decided_proposals(snapshot.findings)
    shown = [
        item
        for item in snapshot.findings
        if (not kind or item["kind"] == kind)
        and _visible(viewer, item["fact"]["scope"])
        and (not item.get("other") or _visible(viewer, item["other"]["scope"]))
        and item.get("proposal") not in decided
    ]
    total = counts.get(kind, 0) if kind else sum(counts.values())
    page = Page(
        items=[finding_from(item) for item in shown[offset : offset + limit]],
        total=max(total, len(shown)),
        offset=offset,
        limit=limit,
    )
    return HealthView(
        facts=snapshot.facts,
        counts=counts,
        page=page,
        kind=kind,
        finished_at=snapshot.finished_at,
        seconds=snapshot.seconds,
        outdated=state.outdated,
        requested_at=state.requested_at,
        error=snapshot.error,
    )


def _visible(viewer: Viewer, scope_key: str) -> bool:
    return viewer.may_see(Scope.parse(scope_key))


def _decided_proposals(findings: list[dict]) -> set[int]:
    # A contradiction decided since the report was made is no longer a finding.
    pks = [item["proposal"] for item in findings if item.get("proposal")]
    if not pks:
        return set()
    return set(
        Proposal.objects.filter(pk__in=pks)
        .exclude(status=Proposal.PROPOSED)
        .values_list("pk", flat=True)
    )


def console_health_fix(
    *, viewer: Viewer, action: str, shard: str, fact_id: str, keep_shard: str = "", keep: str = ""
) -> int:
    """Apply one fix as this person; returns fact lines changed."""
    where = _shard(viewer, shard)
    viewer.check_editor(where.bot)
    fact = fact_in_shard(shard=where, fact_id=fact_id)
    other = fact_in_shard(shard=_shard(viewer, keep_shard), fact_id=keep) if keep else None
    reach, _ = shard_erase_reach(viewer=viewer, shard=where)  # as "Delete and erase" reaches
    changed = health_fix(
        action=action, fact=fact, other=other, by=viewer.person, via="console", reach=reach
    )
    health_fixed(fact=fact)
    return changed


@dataclass(frozen=True, slots=True)
class ProposalRow:
    """One proposal as the inbox shows it."""

    pk: int
    origin: str
    action: str
    bot: str
    scope: str
    evidence: list[dict]
    text: str
    reason: str
    verdict: str
    status: str
    result: dict


def proposals_view(
    *, viewer: Viewer, bot: str, status: str = Proposal.PROPOSED
) -> list[ProposalRow]:
    """A bot's proposals with this status, newest first, in scopes this person may see."""
    rows = Proposal.objects.filter(bot=bot, status=status).order_by("-created_at")[:200]
    return [
        ProposalRow(
            p.pk,
            p.origin,
            p.action,
            p.bot,
            p.scope_key,
            p.evidence,
            p.text,
            p.reason,
            p.verdict,
            p.status,
            p.result,
        )
        for p in rows
        if viewer.may_see(Scope.parse(p.scope_key))
    ]


def console_proposal_decide(
    *, viewer: Viewer, bot: str, proposal_id: int, accept: bool
) -> Proposal:
    """Accept (apply) or reject one of a bot's open proposals as this person."""
    proposal = Proposal.objects.filter(pk=proposal_id, bot=bot).first()
    if proposal is None:
        raise FactNotFound("No such proposal.")
    if not viewer.may_see(Scope.parse(proposal.scope_key)):
        raise NotAllowed("That proposal is about another person's user memory.")
    viewer.check_editor(bot)
    if proposal.origin == LESSONS_ORIGIN and accept:
        return lessons_apply(proposal=proposal)
    return proposal_decide(proposal_id=proposal_id, accept=accept, by=viewer.person, bots=[bot])


@dataclass(frozen=True, slots=True)
class HealthRow:
    """One finding as the health page shows it, with what its fix buttons post."""

    kind: str
    label: str
    why: str
    fact_id: str
    text: str
    scope: str
    shard: str
    bot: str
    other_id: str = ""
    other_text: str = ""
    other_shard: str = ""
    fixes: tuple[str, ...] = ()
    proposal: int | None = None


KIND_LABELS = {
    "secret": "Secret",
    "instruction": "Reads as an instruction",
    "contradiction": "Contradiction",
    "duplicate": "Duplicate",
    "junk": "Junk",
    "too_long": "Too long",
    "marked": "Marked by feedback",
    "review": "Review due",
    "unverified": "Used most, never verified",
    "unused": "Never used",
}


def health_rows(findings: list[Finding]) -> list[HealthRow]:
    """These findings as rows for the page."""
    rows = []
    for f in findings:
        other = f.other
        rows.append(
            HealthRow(
                kind=f.kind,
                label=KIND_LABELS[f.kind],
                why=f.why,
                fact_id=f.fact.fact_id,
                text=f.fact.text,
                scope=f.fact.scope,
                shard=f"{f.fact.scope}|{f.fact.shard_bot}",
                bot=f.fact.shard_bot,
                other_id=other.fact_id if other else "",
                other_text=other.text if other else "",
                other_shard=f"{other.scope}|{other.shard_bot}" if other else "",
                fixes=PERSON_FIXES[f.kind],
                proposal=f.proposal,
            )
        )
    return rows
