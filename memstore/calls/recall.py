"""The bots' door for recall: search the memory a bot may read from its room within the reads'
time budget (stale or unavailable rather than waiting); every fact returned counts as a use
(upkeep reads the counts)."""

from memstore.index.budget import Timed, memory_read
from memstore.recall import RecallResult, recall_search
from memstore.recall.jobs import backfill_wanted
from memstore.rooms.access import Context, readable_scopes
from memstore.upkeep.usage import usage_note

__all__ = ["RecallResult", "Timed", "recall_answer"]


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
    timed = memory_read(
        scopes=readable_scopes(ctx),
        read=lambda: recall_search(
            ctx=ctx, query=query, limit=limit, rerank=rerank, explain=explain, expect=expect
        ),
        empty=lambda: RecallResult(
            items=[], more=0, mode="lexical", note="Memory is unavailable right now."
        ),
        fold=True,  # the sync's query rides in recall's terms + versions statement
        new_facts=backfill_wanted,
    )
    usage_note(recalled=timed.value.items)
    return timed
