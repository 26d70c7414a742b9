"""The change feed's shapes: the query (a cursor and a page size) and the events."""

from typing import Literal

from ninja import Schema
from pydantic import Field

from memoryconsole.api.schemas.base import Out
from memstore.calls.changes import DEFAULT_LIMIT, MAX_LIMIT, ChangesPage, FeedEvent

EventType = Literal["add", "edit", "supersede", "expire", "forget", "erase", "restore"]


class FeedQuery(Schema):
    since: int = Field(
        0,
        ge=0,
        description="The cursor from the previous answer (0: from the start). Cursors are "
        "numbers of the workspace's feed: they survive restarts and `reindex`.",
    )
    limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT)


class FeedEventOut(Out):
    id: int = Field(description="The event's number: the same in the feed and every webhook.")
    type: EventType | str
    fact_id: str
    text: str | None = Field(description="The fact's text after the change; null once erased.")
    old_text: str | None = Field(description="An edit's text before; null otherwise or erased.")
    old_fact_id: str | None
    erased: bool
    scope: str = Field(description="kind:name of the scope, e.g. project:alpha")
    shard_bot: str = Field(description="The bot whose shard changed.")
    by: str
    via: str
    at: str = Field(description="When it was recorded (ISO 8601, UTC).")

    @classmethod
    def of(cls, event: FeedEvent) -> "FeedEventOut":
        return cls(
            id=event.id,
            type=event.type,
            fact_id=event.fact_id,
            text=event.text,
            old_text=event.old_text,
            old_fact_id=event.old_fact_id,
            erased=event.erased,
            scope=event.scope,
            shard_bot=event.shard_bot,
            by=event.by,
            via=event.via,
            at=event.at,
        )


class FeedOut(Out):
    events: list[FeedEventOut]
    cursor: int = Field(description="Send it as `since` next time.")
    more: bool = Field(description="More events are waiting: ask again at once.")

    @classmethod
    def of(cls, page: ChangesPage) -> "FeedOut":
        return cls(
            events=[FeedEventOut.of(e) for e in page.events], cursor=page.cursor, more=page.more
        )
