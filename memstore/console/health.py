"""The console's health pages and proposal inbox: what a person may see of a bot's (or the
workspace's) health report and of upkeep and synthesis proposals, and their one-click fixes,
applied as that person (`by=<username>`, `via=console`) through the ordinary services."""

from dataclasses import dataclass

from memstore.console.viewer import Viewer
from memstore.console.writes import shard_erase_reach
from memstore.errors import FactNotFound, NotAllowed
from memstore.facts.paths import Scope, Shard
from memstore.models import Proposal
from memstore.upkeep.health import HealthReport, fact_in_shard, health_fix, health_report
from memstore.upkeep.proposals import proposal_decide
from memstore.upkeep.store import bot_store_shards, workspace_shards


def _shard(viewer: Viewer, value: str) -> Shard:
    shard = Shard.parse(value)
    if not viewer.may_see(shard.scope):
        raise NotAllowed("That is another person's user memory.")
    return shard


def health_view(*, viewer: Viewer, bot: str | None = None) -> HealthReport:
    """The health report of a bot's store, or (bot None) of the workspace, as this person sees it."""
    shards = bot_store_shards(bot) if bot else workspace_shards()
    return health_report(shards=[s for s in shards if viewer.may_see(s.scope)])


def console_health_fix(
    *, viewer: Viewer, action: str, shard: str, fact_id: str, keep_shard: str = "", keep: str = ""
) -> int:
    """Apply one fix as this person; returns fact lines changed."""
    where = _shard(viewer, shard)
    viewer.check_editor(where.bot)
    fact = fact_in_shard(shard=where, fact_id=fact_id)
    other = fact_in_shard(shard=_shard(viewer, keep_shard), fact_id=keep) if keep else None
    reach, _ = shard_erase_reach(viewer=viewer, shard=where)  # as "Delete and erase" reaches
    return health_fix(
        action=action, fact=fact, other=other, by=viewer.person, via="console", reach=reach
    )


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
        if viewer.may_see(Scope(*p.scope_key.split(":", 1)))  # type: ignore[arg-type]
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
    "unused": "Never used",
}


def health_rows(report: HealthReport) -> list[HealthRow]:
    """The report's findings as rows for the page."""
    rows = []
    for f in report.findings:
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
                fixes=f.fixes,
                proposal=f.proposal,
            )
        )
    return rows
