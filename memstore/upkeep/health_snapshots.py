"""The last finished health report of each store, kept in the database so a page shows it at
once, and the making of a new one: inline for a small store, in the worker (the durable queue,
`memstore.upkeep.jobs.health_store`) for a large one, while the page keeps showing the last.

A store is a bot's (key "bot:<slug>": every shard it writes) or the workspace's ("workspace").
A report is out of date when the versions of its scopes (`memstore.recall.versions`) changed
since it was made. A fix takes its fact out of every kept report at once, so a page never
offers a fix twice; the next report counts afresh.

Owns: keys, turning findings to and from JSON, refreshing, requesting. Does not: decide what a
finding is (`memstore.upkeep.health`) or who may see it (the console filters by scope).
"""

import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memstore.facts.paths import Shard
from memstore.facts.records import StoredFact
from memstore.index import index_sync
from memstore.index.sync import sync_bounded
from memstore.models import HealthSnapshot
from memstore.recall.backlog import Backlog, memory_backlog
from memstore.recall.versions import versions_read
from memstore.rooms.access import Context, forget_shards
from memstore.upkeep.health import KINDS, Finding, HealthReport, bot_shown, health_report
from memstore.upkeep.store import bot_store_shards, workspace_shards

WORKSPACE = "workspace"
KEEP_PER_KIND = 500  # findings of each kind a snapshot keeps (counts count them all)
STALE_REQUEST = timedelta(minutes=30)  # a request older than this is asked again


def health_key(bot: str | None) -> str:
    """The snapshot key of a bot's store, or (None) of the workspace."""
    return f"bot:{bot}" if bot else WORKSPACE


def key_shards(key: str) -> list[Shard]:
    """The shards a snapshot key covers."""
    return workspace_shards() if key == WORKSPACE else bot_store_shards(key.removeprefix("bot:"))


@dataclass(frozen=True, slots=True)
class HealthState:
    """What a page shows: the last finished snapshot (None: none yet), whether the store changed
    since, and since when a new report has been asked for (None: none is on its way)."""

    snapshot: HealthSnapshot | None
    outdated: bool
    requested_at: datetime | None


def health_state(*, key: str, refresh: bool = False) -> HealthState:
    """The last report of a store, made inline first when the store is small and the report is
    missing or out of date (or `refresh`); for a large store a new report is requested from
    the worker instead, and the last one stays on show meanwhile."""
    shards = key_shards(key)
    scopes = list(dict.fromkeys(s.scope for s in shards))
    snapshot = HealthSnapshot.objects.filter(key=key).first()
    versions = versions_read([str(s) for s in scopes])
    size = sum(v[-1] for v in versions.values())
    if size <= _inline_facts():
        # Small: a sync costs a few stats, and a report well under a second.
        index_sync(scopes=scopes)
        versions = versions_read([str(s) for s in scopes])
        if refresh or snapshot is None or _versions(versions) != snapshot.versions:
            snapshot = health_refresh(key=key)
        return HealthState(snapshot, False, None)
    outdated = snapshot is not None and _versions(versions) != snapshot.versions
    if refresh or snapshot is None or snapshot.finished_at is None or outdated:
        snapshot = health_request(key=key)
    finished = snapshot if snapshot.finished_at is not None else None
    return HealthState(finished, outdated, snapshot.requested_at)


def health_refresh(*, key: str) -> HealthSnapshot:
    """Make the report of a store now and keep it (the worker's job; inline for small ones)."""
    start = time.perf_counter()
    shards = key_shards(key)
    report = health_report(shards=shards, limit=10**9, per_kind=KEEP_PER_KIND)
    versions = versions_read([str(s) for s in dict.fromkeys(s.scope for s in shards)])
    values = {
        "facts": report.facts,
        "counts": report.by_scope,
        "findings": [finding_json(f) for f in report.findings],
        "versions": _versions(versions),
        "finished_at": timezone.now(),
        "seconds": round(time.perf_counter() - start, 3),
        "requested_at": None,
        "error": "",
    }
    snapshot, _ = HealthSnapshot.objects.update_or_create(key=key, defaults=values)
    return snapshot


def health_request(*, key: str) -> HealthSnapshot:
    """Ask the worker for a new report of a store (once: a queued one is not queued again)."""
    from memstore.upkeep.jobs import health_enqueue

    now = timezone.now()
    with transaction.atomic():
        snapshot, _ = HealthSnapshot.objects.select_for_update().get_or_create(key=key)
        if snapshot.requested_at is None or snapshot.requested_at < now - STALE_REQUEST:
            snapshot.requested_at = now
            snapshot.save(update_fields=["requested_at"])
    health_enqueue(key=key)
    return snapshot


def health_job(*, key: str) -> str:
    """What the worker does for a request: make the report, or record why it could not (the
    page says so) and raise for the queue's record."""
    try:
        snapshot = health_refresh(key=key)
    except Exception as error:
        message = f"{type(error).__name__}: {error}"[:2000]
        HealthSnapshot.objects.filter(key=key).update(requested_at=None, error=message)
        raise
    return f"{snapshot.facts} facts in {snapshot.seconds:.1f} s"


def health_fixed(*, fact: StoredFact) -> None:
    """Take findings about this fact (either side of a pair) out of every kept report."""
    ref = {"scope": fact.scope, "bot": fact.shard_bot, "id": fact.fact_id}
    keys = [health_key(fact.shard_bot), WORKSPACE]
    with transaction.atomic():
        for snapshot in HealthSnapshot.objects.select_for_update().filter(key__in=keys):
            kept, gone = [], []
            for item in snapshot.findings:
                sides = [item["fact"], item.get("other") or {}]
                about = any(all(side.get(k) == v for k, v in ref.items()) for side in sides)
                (gone if about else kept).append(item)
            for item in gone:
                counts = snapshot.counts.get(item["fact"]["scope"], {})
                counts[item["kind"]] = max(0, counts.get(item["kind"], 0) - 1)
            if gone:
                snapshot.findings = kept
                snapshot.save(update_fields=["findings", "counts"])


def finding_json(finding: Finding) -> dict:
    """A finding as a snapshot keeps it."""
    return {
        "kind": finding.kind,
        "why": finding.why,
        "fact": _fact_json(finding.fact),
        "other": _fact_json(finding.other) if finding.other else None,
        "proposal": finding.proposal,
    }


def finding_from(item: dict) -> Finding:
    """A kept finding back as a Finding (its facts hold what the page shows)."""
    other = item.get("other")
    return Finding(
        kind=item["kind"],
        fact=_fact_from(item["fact"]),
        why=item["why"],
        other=_fact_from(other) if other else None,
        proposal=item.get("proposal"),
    )


def _fact_json(fact: StoredFact) -> dict:
    return {
        "id": fact.fact_id,
        "text": fact.text,
        "scope": fact.scope,
        "bot": fact.shard_bot,
        "day": fact.day.isoformat(),
        "tier": fact.tier,
        "file": fact.file,
        "visibility": fact.visibility,
    }


def _fact_from(item: dict) -> StoredFact:
    return StoredFact(
        fact_id=item["id"],
        day=date.fromisoformat(item["day"]),
        text=item["text"],
        tier=item.get("tier", "log"),
        scope=item["scope"],
        shard_bot=item["bot"],
        file=item.get("file", ""),
        visibility=item.get("visibility", "context"),
    )


def _versions(versions: dict[str, tuple]) -> dict[str, list]:
    # As JSON keeps them (tuples come back as lists).
    return {key: list(value) for key, value in sorted(versions.items())}


def _inline_facts() -> int:
    return int(settings.HEALTH_INLINE_FACTS)


@dataclass(frozen=True, slots=True)
class BotHealth:
    """What a bot is told of its memory's health: the report, when it was made, whether the
    store changed since (`outdated`) and whether a new one is being made (`preparing`)."""

    report: HealthReport
    finished_at: datetime | None = None
    outdated: bool = False
    preparing: bool = False
    indexed: int = 0  # facts the index holds now for these scopes (the report may be older)
    backlog: Backlog = Backlog()  # what the index and the vectors still catch up with

    @property
    def note(self) -> str:
        """The report's state in words, with the backlog's counts ("" when all is current)."""
        parts = []
        if self.finished_at is None and self.preparing:
            parts.append(f"No report yet: the worker is making one over {self.indexed:,} facts")
        elif self.outdated:
            parts.append(f"Memory changed since this report ({self.indexed:,} facts now)")
        if said := self.backlog.sentence():
            parts.append(said)
        return "; ".join(parts) + "." if parts else ""


def bot_health(*, ctx: Context) -> BotHealth:
    """The health of what a bot may change from this room (hidden facts left out): made now
    for a small store; for a large one, its last finished report narrowed to these shards,
    while the worker makes a new one when the store changed since (a bot never waits for a
    50,000-fact report)."""
    shards = forget_shards(ctx, [])
    scopes = list(dict.fromkeys(s.scope for s in shards))
    with sync_bounded():  # a large drop-in is indexed behind this call, not in it
        index_sync(scopes=scopes)
    keys = [str(s) for s in scopes]
    versions = versions_read(keys)
    indexed = sum(v[-1] for v in versions.values())
    now = {"indexed": indexed, "backlog": memory_backlog(keys=keys, versions=versions)}
    if indexed <= _inline_facts():
        return BotHealth(bot_shown(health_report(shards=shards)), finished_at=timezone.now(), **now)
    state = health_state(key=health_key(ctx.bot))
    preparing = state.requested_at is not None
    if state.snapshot is None:
        empty = HealthReport(facts=0, findings=[], counts=dict.fromkeys(KINDS, 0))
        return BotHealth(empty, preparing=True, **now)
    allowed = {(str(s.scope), s.bot) for s in shards}

    def inside(fact: StoredFact | None) -> bool:
        return fact is None or (fact.scope, fact.shard_bot) in allowed

    findings = [finding_from(item) for item in state.snapshot.findings]
    kept = [f for f in findings if inside(f.fact) and inside(f.other)]
    report = bot_shown(HealthReport(facts=state.snapshot.facts, findings=kept))
    return BotHealth(report, state.snapshot.finished_at, state.outdated, preparing, **now)
