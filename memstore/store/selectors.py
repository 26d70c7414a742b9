"""Reads: every selector syncs the files it depends on first, then queries the index.

So no caller can forget the sync, and a hand edit is seen by the very next read.
"""

from collections.abc import Collection, Iterable

from django.db.models import BooleanField, F
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


def facts_list(
    *,
    scopes: Iterable[Scope],
    tier: str | None = None,
    month: str | None = None,
    contains: str | None = None,
    shard_bot: str | None = None,
    visible: Collection[str] | None = None,
    expired: bool | None = None,
    offset: int = 0,
    limit: int = 50,
) -> Page[StoredFact]:
    """Facts of these scopes, newest first, filtered and paged (one row per file line); only
    those of the `visible` visibilities when given (`memstore.rooms.access.visible`); with
    `expired`, only the facts whose `until` day has passed (True) or only the others (False)."""
    scopes = list(scopes)
    index_sync(scopes=scopes)
    rows = Fact.objects.filter(scope_key__in=[str(s) for s in scopes])
    if tier:
        rows = rows.filter(tier=tier)
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
    total = rows.count()
    page = rows.annotate(file_path=F("file__path")).order_by("-day", *RANK_ORDER_FIELDS)[
        offset : offset + limit
    ]
    return Page(items=[stored_from_row(r) for r in page], total=total, offset=offset, limit=limit)


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
