"""The bots' door for recall: search the memory a bot may read from its room within the reads'
time budget (stale, or partial with what was ready, rather than waiting; unavailable only when
the database can't be reached); every fact returned counts as a use (upkeep reads the counts)
and is kept as retrieved for the exchange the bot reports next (`memstore.learning.sources`:
one insert).

When the budget runs out before recall is done, the answer is its words side (a lexical search,
no meaning, no reranking) marked `partial` with the reason; a side recall itself gave up in
time (the query's meaning) marks it the same way."""

import logging
from dataclasses import replace

from django.db import DatabaseError

from memstore.index.budget import Timed, memory_read
from memstore.learning.sources import recall_served
from memstore.recall import RecallResult, recall_search
from memstore.recall.backlog import memory_backlog
from memstore.recall.jobs import backfill_wanted
from memstore.rooms.access import Context, readable_scopes
from memstore.upkeep.usage import usage_note

__all__ = ["RecallResult", "Timed", "recall_answer"]

logger = logging.getLogger(__name__)

WORDS_ONLY = "answered with the words side only (no meaning, no reranking)"
NOTHING_IN_TIME = (
    "Nothing matched by words in the time there was; meaning was not searched: ask again."
)
NOTHING_INDEXED_YET = "Nothing matches among the facts indexed so far."
NOTHING_MATCHES = "Nothing in memory matches."  # recall's words when nothing matched at all


def recall_answer(
    *,
    ctx: Context,
    query: str,
    limit: int | None = None,
    rerank: bool | None = None,
    explain: bool = False,
    expect: list[str] | None = None,
) -> Timed[RecallResult]:
    """Recall for a bot within the time budget. `rerank`, `explain` and `expect`: see
    `recall_search`."""

    def search(mode: str = "auto", rerank: bool | None = rerank) -> RecallResult:
        return recall_search(
            ctx=ctx,
            query=query,
            limit=limit,
            rerank=rerank,
            explain=explain,
            expect=expect,
            mode=mode,
        )

    scopes = readable_scopes(ctx)
    timed = memory_read(
        scopes=scopes,
        read=search,
        empty=lambda: RecallResult(
            items=[], more=0, mode="lexical", note="Memory is unavailable right now."
        ),
        fold=True,  # the sync's query rides in recall's terms + versions statement
        new_facts=backfill_wanted,
        partial=lambda: search("lexical", rerank=False),
    )
    usage_note(recalled=timed.value.items)
    if timed.memory == "ok":
        _served(ctx, timed.value.items)
    timed = _partial_told(timed)
    return _backlog_told(timed, [str(scope) for scope in scopes]) if timed.stale else timed


def _served(ctx: Context, items: list) -> None:
    # What shaped a reply is a record, not the answer: losing one never fails the recall.
    try:
        recall_served(bot=ctx.bot, room_id=ctx.room.id, facts=items)
    except DatabaseError as error:
        logger.warning("recall not recorded: %s", error)


def _backlog_told(timed: Timed[RecallResult], keys: list[str]) -> Timed[RecallResult]:
    """A stale answer says how many facts are still being indexed (not searched yet), and
    never that nothing matches."""
    backlog = memory_backlog(keys=keys, meaning=False)
    if not (backlog.indexing or backlog.uncounted_files):
        return timed
    result = timed.value
    note = result.note.replace(NOTHING_MATCHES, NOTHING_INDEXED_YET)
    told = f"{backlog.sentence().capitalize()}: not searched yet."
    result = replace(result, note=" ".join(filter(None, [told, note])), indexing=backlog.indexing)
    return replace(timed, value=result)


def _partial_told(timed: Timed[RecallResult]) -> Timed[RecallResult]:
    """The answer with its partial reason (the budget's, or recall's own) said once, and never
    claiming there is nothing when the search was cut short."""
    result = timed.value
    if timed.partial and timed.memory == "ok":
        reason = f"{timed.partial_reason}; {WORDS_ONLY}"
    else:
        reason = timed.partial_reason or result.partial_reason
    if reason and timed.memory == "ok" and not result.items and not result.literal:
        result = replace(result, note=NOTHING_IN_TIME)
    return replace(timed, value=result, partial_reason=reason)
