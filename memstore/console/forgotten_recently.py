"""What was forgotten lately: the removals of the last N days in some shards, newest first.

Owns `forgotten_recent`, read by a person's About me page and a bot's page ("Forgotten in the
last 30 days"): each shard's history is read backwards only as far as the cut-off, and a removal
is listed unless the fact is back in memory (restored, or saved again) or was erased (an erased
line leaves a tombstone, not its text). Does not restore anything (the pages' undo does) or
decide who may see which shards (the callers pass only shards the viewer may see).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from memstore.console.facts import bot_tabs
from memstore.console.viewer import Viewer
from memstore.facts.activity import shard_history_page
from memstore.facts.markdown import parse_line
from memstore.facts.paths import Scope, Shard, memory_root, scope_shards
from memstore.index import index_sync
from memstore.models import Fact

RECENT_DAYS = 30
MAX_LISTED = 50


@dataclass(frozen=True, slots=True)
class Forgotten:
    """One fact removed lately: its text, the shard's bot, when, by whom and how."""

    fact_id: str
    text: str
    file: str
    bot: str
    at: str  # ISO 8601 UTC
    by: str
    via: str


def forgotten_recent(
    *, shards: Iterable[Shard], days: int = RECENT_DAYS, limit: int = MAX_LISTED
) -> list[Forgotten]:
    """Facts removed from these shards in the last `days` days and not back, newest first."""
    cutoff = (datetime.now(UTC) - timedelta(days=days)).isoformat()
    found: dict[tuple[str, str], Forgotten] = {}
    shards = list(shards)
    for shard in shards:
        before = None
        while True:
            page = shard_history_page(
                root=memory_root(), shard=shard, before=before, limit=200, removed_only=True
            )
            for item in page.items:
                change = item.change
                if change.at < cutoff:
                    break
                fact = parse_line(change.line)
                if fact is None:  # a tombstone: erased, nothing to show
                    continue
                key = (change.file, change.fact_id)
                found.setdefault(
                    key,
                    Forgotten(
                        fact_id=change.fact_id,
                        text=fact.body,
                        file=change.file,
                        bot=shard.bot,
                        at=change.at,
                        by=change.by,
                        via=change.via,
                    ),
                )
            else:
                if page.before is not None:
                    before = page.before
                    continue
            break
    scopes = list(dict.fromkeys(shard.scope for shard in shards))
    ids = {f.fact_id for f in found.values()}
    back: set[str] = set()
    if ids:
        index_sync(scopes=scopes)
        rows = Fact.objects.filter(scope_key__in=[str(s) for s in scopes], fact_id__in=ids)
        back = set(rows.values_list("fact_id", flat=True))
    listed = [f for f in found.values() if f.fact_id not in back]
    listed.sort(key=lambda f: f.at, reverse=True)
    return listed[:limit]


def bot_forgotten(*, bot: str, viewer: Viewer) -> list[Forgotten]:
    """What this bot's shards the viewer may see lost in the last RECENT_DAYS days."""
    shards = [
        scope.shard(bot)
        for tab in bot_tabs(bot=bot, viewer=viewer, counts=False)
        for scope in tab.scopes
    ]
    return forgotten_recent(shards=shards)


def person_forgotten(*, person: str) -> list[Forgotten]:
    """What every bot's shard of the person's memory lost in the last RECENT_DAYS days."""
    return forgotten_recent(shards=scope_shards(memory_root(), Scope("user", person)))
