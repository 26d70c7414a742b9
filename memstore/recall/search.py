"""`recall_search`: what a bot (or a person, in the console) finds when it searches memory.

Syncs the scopes the context may read, asks the semantic side for the nearest
facts (above the relevance floor) and the lexical side for facts sharing words, fuses the two
(preferring facts saved around a date the query names), and falls back to a literal substring
match only when nothing matched at all. Results are capped at a count and a character budget;
the answer says how many more matched. Hidden facts are left out unless a person asks
(`include_hidden`, the console), and so is what the read withholds (`memstore.rules.withheld`:
excluded topics, a paused person's memory, lines the secret detector flags) and facts whose
`until` day has passed (`memstore.facts.validity`), skipped as the results are budgeted so the
answer still fills.

Two statements for a warm search: the query's terms together with the searched scopes' versions
and their file rows (the sync's check: the files are statted first, and a file found behind is
synced before the terms are read again); and loading the facts to show with the candidates' usage
(the ranking's small usage nudge: the rows loaded are every one the nudge could bring among
those shown, `usage_reach`). In between, both sides rank in this process over the scopes'
snapshots (`snapshot`, `word_rank`, `matrices`), which a changed scope refreshes file by file. A search over more facts than a process holds is ranked by Postgres
instead (`lexical`'s statement, which also loads every row either side can contribute, and the
HNSW index). A recent query's vector is remembered (see `query_vectors`).

No fact is embedded here: facts without a vector yet are found by their words and, where the
model has one, by the static tier (`tiers`); the answer says how many are waiting (`waiting` of
`searched`), which tier served (`meaning`, with `tiers`' counts), and the worker is asked to make
them (`jobs.backfill_wanted`).
"""

import logging
from dataclasses import dataclass, field, replace
from typing import Literal

from django.conf import settings
from django.db import connection
from django.utils import timezone

from memstore.errors import InvalidQuery
from memstore.facts.paths import Scope
from memstore.facts.ranking import merge_newest
from memstore.facts.records import (
    STORED_COLUMNS_BY_ROW,
    StoredFact,
    stored_from_values,
)
from memstore.facts.validity import expired_sql, may_expire_sql
from memstore.recall import fusion
from memstore.recall.budgeted import budgeted, never_returned
from memstore.recall.dates import date_mentions, in_any
from memstore.recall.explain import Explanation, expected_why, explanation
from memstore.recall.literals import array_literal
from memstore.recall.partial import newest_containing
from memstore.recall.rerank import Reranked, rerank_note_unavailable, rerank_top, rerank_wanted
from memstore.recall.rerankers import Reranker
from memstore.recall.sides import Sides, both_sides
from memstore.recall.tiers import (
    MODEL_FAILED,
    Meaning,
    Tiers,
    no_model_note,
    tier_label,
    waiting_note,
)
from memstore.recall.usage_rank import (
    USAGE_SQL,
    usage_applied,
    usage_bonuses_parse,
    usage_reach,
    usage_rescored,
)
from memstore.recall.vectors import embedder_current
from memstore.rooms.access import Context, readable_scopes, visible
from memstore.rules.withheld import Withholding

logger = logging.getLogger(__name__)

Mode = Literal["auto", "hybrid", "lexical", "semantic"]
LATE = (
    "time ran out before meaning could be searched (the query's vector or the scopes' search "
    "index was not ready within the budget): searched by words only"
)


@dataclass(frozen=True, slots=True)
class RecallResult:
    """The facts found, best first; how many more matched; how they were searched; a note."""

    items: list[StoredFact]
    more: int
    mode: Literal["hybrid", "lexical", "semantic"]
    note: str = ""
    scores: dict[str, float] = field(default_factory=dict)  # fact_id -> fused score
    literal: bool = False  # found by the substring fallback (nothing matched otherwise)
    more_capped: bool = False  # the fallback stopped counting: `more` is a lower bound
    searched: int = 0  # facts in the searched scopes
    waiting: int = 0  # of them, facts without a vector yet: found by their words only
    reranked: bool = False  # the top was reordered by the reranker
    explain: "Explanation | None" = None  # with explain=True: why each result came where it did
    meaning: Meaning = "words"  # which tier of meaning served: full, static, mixed or words
    tiers: Tiers = field(default_factory=Tiers)  # facts judged by each tier
    reranking: "Reranked | None" = field(default=None, repr=False)  # what the reranker did
    partial_reason: str = ""  # a side left out for want of time (the read's budget)
    indexing: int = 0  # facts on disk not indexed yet, so not searched (`recall.backlog`)


def recall_search(
    *,
    ctx: Context,
    query: str,
    limit: int | None = None,
    include_hidden: bool = False,
    mode: Mode = "auto",
    rerank: bool | None = None,
    explain: bool = False,
    expect: list[str] | None = None,
) -> RecallResult:
    """Search the memory this context may read, by words and (with a model) by meaning; a
    blank query raises InvalidQuery. Private facts only in the rooms they are for; nothing the
    read withholds (a paused person's user memory is not even searched). `rerank`: None
    follows RECALL_RERANK, False skips it; `explain`: say why each result came where it did,
    and where each `expect`ed fact (an id or a text) fell and why."""
    result = recall_in_scopes(
        scopes=readable_scopes(ctx),
        query=query,
        limit=limit,
        include_hidden=include_hidden,
        mode=mode,
        rerank=rerank,
        explain=explain,
        # A person (include_hidden: the console) sees what bots are not shown.
        withhold=not include_hidden,
        person=ctx.reads_for,
    )
    seen = visible(ctx, hidden=include_hidden)
    result = result if "private" in seen else _without_private(result)
    if result.explain is not None:
        shown = {fact.fact_id for fact in result.items}
        result.explain.results = [r for r in result.explain.results if r.fact_id in shown]
        for place, row in enumerate(result.explain.results, start=1):
            result.explain.results[place - 1] = replace(row, place=place)
        if expect:
            result.explain.expected = expected_why(
                result.explain, expect, scopes=readable_scopes(ctx), seen=seen, shown=result.items
            )
    return result


def recall_in_scopes(
    *,
    scopes: list[Scope],
    query: str,
    limit: int | None = None,
    include_hidden: bool = False,
    mode: Mode = "auto",
    max_chars: int | None = None,
    withhold: bool = False,
    person: str | None = None,
    rerank: bool | None = None,
    explain: bool = False,
) -> RecallResult:
    """The search over scopes a caller already decided may be read (the console: a bot's tabs,
    every bot a person may see); `max_chars` overrides the bots' budget; `withhold`: skip what
    the read rule withholds in a room with `person` (a direct room's, read with the terms)."""
    query, limit, budget = _asked(query, limit, max_chars)
    embedder = embedder_current() if mode != "lexical" else None
    used = "lexical" if embedder is None else ("semantic" if mode == "semantic" else "hybrid")
    note = "" if embedder is not None or mode == "lexical" else no_model_note()
    found = both_sides(
        scopes, query, embedder, words=used != "semantic", hidden=include_hidden,
        withhold=(person,) if withhold else None,
    )  # fmt: skip
    withheld = found.withheld
    used, note = _sides_said(found, used, note)
    mentions = date_mentions(query)
    dated = (lambda day: in_any(mentions, day)) if mentions else None
    fused = fusion.fuse(
        lexical=found.lexical, dense=found.dense, dated=dated, waiting=found.waiting_known
    )
    reranker = rerank_wanted(rerank) if fused else None
    if not fused:
        result = _substring_fallback(
            scopes=scopes, query=query, limit=limit, include_hidden=include_hidden, mode=used,
            budget=budget, withheld=withheld,
        )  # fmt: skip
        note = " ".join(filter(None, [note, result.note]))
        result = replace(result, note=note, searched=found.searched, waiting=found.waiting)
    else:
        if reranker is None:
            note = " ".join(filter(None, [note, rerank_note_unavailable(rerank)]))
        result, fused = _fused_result(
            found, fused, scope_keys=[str(scope) for scope in scopes], query=query,
            reranker=reranker, limit=limit, budget=budget, mode=used, note=note,
        )  # fmt: skip
    served = used != "lexical" and found.vector is not None
    late = LATE if found.late else result.partial_reason
    meaning = tier_label(found.tiers, meaning=served)
    result = replace(result, meaning=meaning, tiers=found.tiers, partial_reason=late)
    if explain:
        model = embedder.name if embedder is not None and used != "lexical" else None
        why = explanation(
            found, fused, result, mentions, reranked=result.reranking, reranker=reranker,
            limit=limit, model=model,
        )  # fmt: skip
        result = replace(result, explain=why)
    return result


def _asked(query: str, limit: int | None, max_chars: int | None) -> tuple[str, int, int]:
    # The query with its white space folded (refused when empty), the count asked for within
    # the settings' bounds, and the answer's character budget.
    limit = max(1, min(limit or settings.RECALL_DEFAULT_RESULTS, settings.RECALL_MAX_RESULTS))
    query = " ".join(query.split())
    if not query:
        raise InvalidQuery("Say what to search for: the query is empty or only spaces.")
    return query, limit, max_chars or settings.RECALL_MAX_CHARS


def _sides_said(found: Sides, used: str, note: str) -> tuple[str, str]:
    # The mode recall answers in and its note, once both sides are back: words only when the
    # model failed or the query's vector came too late; a count of the facts still waiting.
    if found.model_failed or found.late:
        return "lexical", ("" if found.late else MODEL_FAILED)
    if found.waiting:
        waited = waiting_note(found.waiting, found.searched, found.tiers.static)
        return used, " ".join(filter(None, [note, waited]))
    return used, note


def _fused_result(
    found: "Sides",
    fused: list,
    *,
    scope_keys: list[str],
    query: str,
    reranker: "Reranker | None",
    limit: int,
    budget: int,
    mode: str,
    note: str,
) -> tuple[RecallResult, list]:
    """The result, and the fused hits as the usage nudge re-ordered them: used often and
    lately, a little higher; unused for months, a little lower (bounded)."""
    # Only the first `limit` rows can be shown; a few spare cover rows deleted meanwhile.
    # The lexical statement loaded every candidate of either side; otherwise they load here,
    # with the usage of every candidate (one statement). A reranker reads the texts of the
    # first RECALL_RERANK_TOP_N.
    loaded, withheld = found.loaded, found.withheld
    expired: frozenset[int] = frozenset()  # the scopes' facts whose `until` day has passed
    wanted = limit + 10 if reranker is None else max(limit + 10, settings.RECALL_RERANK_TOP_N)
    if loaded is not None:
        rows, fused = loaded, usage_rescored(fused, scope_keys=scope_keys)
    else:
        reach = [f.pk for f in fused[: usage_reach(fused, wanted)]]
        rows, bonuses, expired = _rows_and_usage(reach, [f.fact_id for f in fused], scope_keys)
        fused = usage_applied(fused, bonuses)
    order = [f.pk for f in fused]
    reranked = None
    if reranker is not None:
        reranked = rerank_top(reranker, query, fused, rows, withheld=withheld)
        order = reranked.order
        note = " ".join(filter(None, [note, reranked.note]))
    items, skipped, stop = budgeted(rows, order, limit, budget, withheld)
    if skipped and len(items) < limit and loaded is None and len(order) > limit + 10:
        rows |= _rows(order[limit + 10 : limit + 10 + 2 * skipped])  # refill past the withheld
        items, skipped, stop = budgeted(rows, order, limit, budget, withheld)
    more = max(0, max(found.matched, len(fused)) - len(items) - skipped)
    if more:  # "N more" counts only what could be returned: not the expired or withheld
        more = max(0, more - never_returned(rows, order[stop:], withheld, expired))
    result = RecallResult(
        items=items,
        more=more,
        mode=mode,
        note=note,
        scores={f.fact_id: f.score for f in fused},
        searched=found.searched,
        waiting=found.waiting,
        reranked=reranked is not None and reranked.applied,
        reranking=reranked,
    )
    return result, fused


def _without_private(result: RecallResult) -> RecallResult:
    # visibility=private facts are used only in direct rooms.
    items = [f for f in result.items if f.visibility != "private"]
    return replace(result, items=items, more=max(0, result.more - (len(result.items) - len(items))))


def _rows(pks: list[int]) -> dict[int, StoredFact]:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT f.id, {STORED_COLUMNS_BY_ROW} FROM memstore_fact f WHERE f.id = ANY(%s)",
            [pks],
        )
        rows = cursor.fetchall()
    return {row[0]: stored_from_values(row[1:]) for row in rows}


def _rows_and_usage(
    pks: list[int], fact_ids: list[str], scope_keys: list[str]
) -> tuple[dict[int, StoredFact], dict[str, float], frozenset[int]]:
    """These rows, the usage bonuses of these facts, and the ids of the scopes' facts past their
    `until` day (few: read through the partial index `fact_until`), in one statement (one row
    even when none of the facts is left). The usage (one JSON value over every candidate) and
    the expired ids come on every row as text, parsed once: as json, psycopg decoded each
    row's copy."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT u.usage::text, e.ids::text, f.id, {STORED_COLUMNS_BY_ROW}"
            f" FROM ({USAGE_SQL}) u (usage)"
            " CROSS JOIN (SELECT coalesce(array_agg(x.id), '{}') FROM memstore_fact x"
            f" WHERE x.scope_key = ANY(%s) AND {may_expire_sql('x')}"
            f" AND {expired_sql('x')}) e (ids)"
            " LEFT JOIN memstore_fact f ON f.id = ANY(%s)",
            [
                array_literal(fact_ids),
                scope_keys,
                scope_keys,
                timezone.localdate().isoformat(),
                array_literal(pks),
            ],
        )
        found = cursor.fetchall()
    rows = {row[2]: stored_from_values(row[3:]) for row in found if row[2] is not None}
    ids = found[0][1].strip("{}")
    expired = frozenset(int(pk) for pk in ids.split(",")) if ids else frozenset()
    return rows, usage_bonuses_parse(found[0][0]), expired


def _substring_fallback(
    *,
    scopes: list[Scope],
    query: str,
    limit: int,
    include_hidden: bool,
    mode: str,
    budget: int,
    withheld: Withholding | None = None,
) -> RecallResult:
    # The newest rows only (copies of one fact in several shards merge into one) and a bounded
    # count, so a one-letter query over 50,000 facts stays cheap: recall/partial.py.
    page = newest_containing(
        scopes=scopes, query=query, window=(limit + 10) * 4, include_hidden=include_hidden
    )
    found = merge_newest(page.facts)
    rows = dict(enumerate(found))
    items, skipped, stop = budgeted(rows, list(range(len(found))), limit, budget, withheld)
    if not items:
        return RecallResult(items=[], more=0, mode=mode, note="Nothing in memory matches.")
    matched = page.matched
    never = never_returned(rows, list(range(stop, len(found))), withheld)
    return RecallResult(
        items=items,
        more=max(0, max(matched, len(found)) - len(items) - skipped - never),
        mode=mode,
        literal=True,
        more_capped=page.capped,
        note="Nothing matched by words or meaning; these facts contain the query as written.",
    )
