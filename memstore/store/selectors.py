"""Reads: every selector syncs the files it depends on first, then queries the index.

So no caller can forget the sync, and a hand edit is seen by the very next read.
"""

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from django.db.models import BooleanField, F, Q
from django.db.models.expressions import RawSQL
from django.utils import timezone

from memstore.facts.paging import Page
from memstore.facts.paths import (
    Misnamed,
    Scope,
    all_scopes,
    memory_root,
    misnamed_folders,
)
from memstore.facts.ranking import RANK_ORDER_FIELDS
from memstore.facts.records import StoredFact, stored_from_row
from memstore.facts.validity import expired_sql
from memstore.index import index_sync
from memstore.models import Fact


@dataclass(frozen=True, slots=True)
class FactsPage(Page[StoredFact]):
    """A page of merged facts (one per fact and scope) and, per (scope, fact id) listed, the
    other copies of the fact in that scope (other bots' shards, other files)."""

    also_in: dict[tuple[str, str], list[StoredFact]] = field(default_factory=dict)


def facts_list(
    *,
    scopes: Iterable[Scope],
    tier: str | None = None,
    fact_type: str | None = None,
    month: str | None = None,
    contains: str | None = None,
    shard_bot: str | None = None,
    visible: Collection[str] | None = None,
    expired: bool | None = None,
    offset: int = 0,
    limit: int = 50,
    merged: bool = False,
) -> Page[StoredFact]:
    """Facts of these scopes, newest first, filtered and paged (one row per file line); only
    those of the `visible` visibilities when given (`memstore.rooms.access.visible`); with
    `expired`, only the facts whose `until` day has passed (True) or only the others (False);
    `fact_type`: only lines whose `type=` is that (a line without one is a plain "fact").
    `merged`: one row per fact and scope, its newest copy standing for the others (a
    `FactsPage`, naming where else each lives), as readers merge the shards of a shared scope."""
    scopes = list(scopes)
    index_sync(scopes=scopes)
    rows = Fact.objects.filter(scope_key__in=[str(s) for s in scopes])
    if tier:
        rows = rows.filter(tier=tier)
    if fact_type:
        plain = Q(meta__type__isnull=True) if fact_type == "fact" else Q(pk__in=[])
        rows = rows.filter(Q(meta__type=fact_type) | plain)
    if month:
        rows = rows.filter(day__startswith=month) if len(month) == 7 else rows.none()
    if contains:
        rows = rows.filter(text__icontains=contains)
    if shard_bot:
        rows = rows.filter(shard_bot=shard_bot)
    if visible is not None:
        rows = rows.filter(visibility__in=visible)
    if expired is not None:
        today = timezone.localdate().isoformat()
        condition = RawSQL(expired_sql(Fact._meta.db_table), [today], output_field=BooleanField())
        rows = rows.alias(gone=condition).filter(gone=expired)
    if merged:
        return _merged_page(rows, offset=offset, limit=limit)
    total = rows.count()
    page = rows.annotate(file_path=F("file__path")).order_by("-day", *RANK_ORDER_FIELDS)[
        offset : offset + limit
    ]
    return Page(items=[stored_from_row(r) for r in page], total=total, offset=offset, limit=limit)


def _merged_page(rows, *, offset: int, limit: int) -> FactsPage:
    # The newest copy of each (scope, identity) stands for it (ties: the shard, then the file,
    # so the choice never depends on the order rows were indexed in).
    newest = (
        rows.order_by("scope_key", "fact_id", "-day", "shard_bot", "file__path")
        .distinct("scope_key", "fact_id")
        .values("pk")
    )
    chosen = Fact.objects.filter(pk__in=newest)
    total = chosen.count()
    page = chosen.annotate(file_path=F("file__path")).order_by("-day", *RANK_ORDER_FIELDS)[
        offset : offset + limit
    ]
    items = [stored_from_row(r) for r in page]
    others = rows.filter(fact_id__in=[f.fact_id for f in items]).exclude(
        pk__in=[r.pk for r in page]
    )
    also_in: dict[tuple[str, str], list[StoredFact]] = {}
    for row in others.annotate(file_path=F("file__path")).order_by("shard_bot", "file__path"):
        also_in.setdefault((row.scope_key, row.fact_id), []).append(stored_from_row(row))
    return FactsPage(items=items, total=total, offset=offset, limit=limit, also_in=also_in)


def fact_find(*, scopes: Iterable[Scope], fact_id: str) -> list[StoredFact]:
    """Every stored copy of one fact (one per file holding it) in these scopes."""
    scopes = list(scopes)
    index_sync(scopes=scopes)
    rows = Fact.objects.filter(scope_key__in=[str(s) for s in scopes], fact_id=fact_id)
    return [stored_from_row(r) for r in rows.annotate(file_path=F("file__path"))]


def legacy_rooms_of(bot: str) -> list[str]:
    """Legacy rooms that hold a shard written by this bot."""
    root = memory_root()
    return [s.name for s in all_scopes(root) if s.kind == "room" and (root / s.rel / bot).is_dir()]


def folders_misnamed() -> list[Misnamed]:
    """Folders under MEMORY_ROOT whose memory no reader sees because of their names (a shard
    folder that is not a bot slug, a scope folder with a bad name), for "What failed"."""
    return misnamed_folders(memory_root())
