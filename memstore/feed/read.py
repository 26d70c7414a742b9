"""The change feed read by a bot: every event its room may read after a cursor, in order.

The cursor is a feed event's number (`memstore.index.events`): the history lines are numbered
once, in the order the feed first read them, and the numbers live in the database, so a
cursor survives a restart and `reindex`. Before reading, the room's files are synced (a hand
edit is recorded in history as it is for every read) and their histories read into the feed.
Events the room may not read are skipped but still move the cursor on, so a reader never
sees them and never asks for them again.
"""

from dataclasses import dataclass

from memstore.errors import CursorUnknown
from memstore.facts import markdown
from memstore.facts.paths import Scope
from memstore.feed.audience import Audience, audience_of_context
from memstore.index import index_sync
from memstore.index.events import events_ingest, feed_max
from memstore.models import ChangeEvent
from memstore.privacy.target import is_tombstone
from memstore.rooms.access import Context, readable_scopes

DEFAULT_LIMIT = 100
MAX_LIMIT = 500
_BATCH = 500


@dataclass(frozen=True, slots=True)
class FeedEvent:
    """One change as a reader sees it. `type`: add, edit, supersede, expire (its `until` day
    passed), forget, erase, restore; `text` None once the fact was erased (then `erased`)."""

    id: int
    type: str
    fact_id: str
    text: str | None
    old_text: str | None
    old_fact_id: str | None
    erased: bool
    scope: str
    shard_bot: str
    file: str
    by: str
    via: str
    at: str


@dataclass(frozen=True, slots=True)
class ChangesPage:
    """Events after a cursor, the cursor to ask with next, and whether more are waiting."""

    events: list[FeedEvent]
    cursor: int
    more: bool


def changes_since(*, ctx: Context, since: int = 0, limit: int = DEFAULT_LIMIT) -> ChangesPage:
    """The changes this room may read after `since`, oldest first, at most `limit`."""
    scopes = readable_scopes(ctx)
    return changes_read(audience=audience_of_context(ctx), scopes=scopes, since=since, limit=limit)


def changes_read(*, audience: Audience, scopes: list[Scope], since: int, limit: int) -> ChangesPage:
    """The events of `scopes` after `since` that `audience` sees, at most `limit`."""
    index_sync(scopes=scopes)  # hand edits become history lines first
    events_ingest()  # every shard: numbered in the order recorded, whoever reads first
    top = feed_max()
    if since > top:
        raise CursorUnknown(
            f"Cursor {since} is past the newest change ({top}): it belongs to another feed "
            "(the database was replaced). Read again from 0.",
            detail={"newest": top},
        )
    limit = max(1, min(limit, MAX_LIMIT))
    keys = [str(scope) for scope in scopes]
    found: list[FeedEvent] = []
    last = since
    while len(found) < limit:
        rows = list(
            ChangeEvent.objects.filter(scope_key__in=keys, id__gt=last).order_by("id")[:_BATCH]
        )
        if not rows:
            break
        for row in rows:
            last = row.id
            if audience.sees(row):
                found.append(feed_event(row))
                if len(found) == limit:
                    break
    more = ChangeEvent.objects.filter(scope_key__in=keys, id__gt=last).exists()
    # Nothing of these scopes waits past `last`: every event up to `top` was looked at.
    return ChangesPage(events=found, cursor=last if more else max(last, top), more=more)


def feed_event(row: ChangeEvent) -> FeedEvent:
    """A feed row as the reader sees it: the kind of change, and its text unless erased."""
    erased = is_tombstone(row.line) or (row.op == "edit" and is_tombstone(row.old_line))
    fact = None if erased else markdown.parse_line(row.line)
    old = None if erased or not row.old_line else markdown.parse_line(row.old_line)
    return FeedEvent(
        id=row.id,
        type=_type(row, fact, erased),
        fact_id=row.fact_id,
        text=fact.text if fact else None,
        old_text=old.text if old else None,
        old_fact_id=row.old_fact_id or None,
        erased=erased,
        scope=row.scope_key,
        shard_bot=row.shard_bot,
        file=row.file,
        by=row.by,
        via=row.via,
        at=row.at,
    )


def _type(row: ChangeEvent, fact: markdown.FactLine | None, erased: bool) -> str:
    if row.op == "remove":
        return "erase" if erased else "forget"
    supersedes = fact is not None and any(k == "supersedes" for k, _ in markdown.links_of(fact))
    return "supersede" if row.op == "add" and supersedes else row.op
