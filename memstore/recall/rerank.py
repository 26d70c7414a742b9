"""Reranking the top of a fused recall, when it is switched on (RECALL_RERANK, or per call).

Owns: `rerank_top`, which asks the configured reranker (`rerankers`) to score the first
RECALL_RERANK_TOP_N facts of the fusion and blends its rank with the fusion's:
    1 / (BLEND_K + fusion rank) + RERANK_WEIGHT / (BLEND_K + reranker rank)
so a fact both agree on stays first and a paraphrase the cross-encoder misjudges keeps most of
its place. What it may send: every fact the read does not withhold to the bundled model (it
runs here); to a remote one, only what the outgoing gate clears (`memstore.rooms.outgoing`,
`personal=False`): never a private fact, a person's memory, a private conversation's, a private
bot's, a hidden one, or one the read withholds (an excluded topic of a person it names): those
keep their fusion place, and the others are reordered around them. A remote
reranker's tokens count against its own daily cap (RECALL_RERANK_DAILY_TOKENS, one row a day,
`RerankUsage`); once spent, recall answers in the fusion's order and says so. Everything must
finish within RECALL_RERANK_TIMEOUT_MS (and within what is left of a read's budget), else the
fusion's order stands (and the note says so).

The bundled model's work is sized to the machine: from the running estimate of what one pair
costs in this process (`rerank_cost`), only as many of the first facts are sent as fit in the
time there is; fewer than RECALL_RERANK_TOP_N is said in the note ("Reranked the first 6 of
10: ..."), and when not even two fit, nothing is sent and the note says why. Every run, cut off
or not, feeds the estimate.

Does not: run the models (`rerankers`), fuse, or decide what the room may read.
"""

import logging
import time
from dataclasses import dataclass, field
from datetime import date

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from memstore.facts.records import StoredFact
from memstore.index.budget import read_left_ms
from memstore.models import RerankUsage
from memstore.recall.fusion import Fused
from memstore.recall.rerank_cost import MIN_PAIRS, pair_cost_observe, pair_ms, pairs_within
from memstore.recall.rerankers import Reranker, RerankFailed, Scored, reranker_load
from memstore.rooms.outgoing import Cleared, outgoing
from memstore.rules.withheld import Withholding, withholding_for

logger = logging.getLogger(__name__)

BLEND_K = 5
RERANK_WEIGHT = 1.0
RESERVE_MS = 20  # of a read's budget, left for recall to finish after reranking
_LATE = "Not reranked: the reranker did not answer in time; in the order of words and meaning."


@dataclass(frozen=True, slots=True)
class Reranked:
    """The order after reranking (row ids, best first), what the reranker said, and a note."""

    order: list[int]
    applied: bool = False
    scores: dict[str, float] = field(default_factory=dict)  # fact_id -> reranker score
    ranks: dict[str, int] = field(default_factory=dict)  # fact_id -> reranker rank (1 = best)
    kept: frozenset[str] = frozenset()  # fact ids not sent (kept their fusion place)
    note: str = ""
    millis: float = 0.0
    pairs: int = 0  # (query, fact) pairs sent to the reranker


def rerank_wanted(asked: bool | None) -> Reranker | None:
    """The reranker to use: the configured one unless the call says `rerank=false`."""
    if asked is False:
        return None
    return reranker_load(
        settings.RECALL_RERANK,
        url=settings.RECALL_RERANK_URL,
        api_key=settings.RECALL_RERANK_API_KEY,
    )


def rerank_note_unavailable(asked: bool | None) -> str:
    """The note for a call that asked for reranking when none is configured."""
    if not asked:
        return ""
    if settings.RECALL_RERANK == "off":
        return "Not reranked: no reranker is configured (RECALL_RERANK=off)."
    return f"Not reranked: the reranker is not installed (RECALL_RERANK={settings.RECALL_RERANK})."


def rerank_top(
    reranker: Reranker,
    query: str,
    fused: list[Fused],
    rows: dict[int, StoredFact],
    *,
    withheld: Withholding | None = None,
    top_n: int | None = None,
) -> Reranked:
    """The fused order with its first `top_n` facts reranked (see the module docstring)."""
    order = [f.pk for f in fused]
    top_n = top_n or int(settings.RECALL_RERANK_TOP_N)
    head = [f for f in fused[:top_n] if f.pk in rows]
    sendable, texts = _sendable(head, rows, reranker, withheld)
    kept = frozenset(f.fact_id for f in head if f not in sendable)
    if len(sendable) < 2:
        return Reranked(order=order, kept=kept)
    if reranker.remote and (capped := _cap_spent()):
        return Reranked(order=order, kept=kept, note=capped)
    there, sized = _time_there(), ""
    if not reranker.remote:  # a remote one's cost is a round trip, not pairs here
        fit = pairs_within(reranker.name, there, most=len(sendable))
        if not fit:
            return Reranked(order=order, kept=kept, note=_unsized_note(reranker, there))
        if fit < len(sendable):
            sized = _sized_note(reranker, fit, len(sendable), there)
            sendable, texts = sendable[:fit], list(texts)[:fit]  # local: plain texts
            head, kept, top_n = _window(head, sendable)
    start = time.monotonic()
    try:
        scored = reranker.score(query, texts, deadline=start + there / 1000)
        millis = (time.monotonic() - start) * 1000
        pair_cost_observe(reranker.name, pairs=len(sendable), millis=millis)
        if millis > there:  # finished past the budget (one slow pair): the answer can't wait
            return Reranked(order=order, kept=kept, note=_LATE, millis=millis)
    except RerankFailed as error:
        millis = (time.monotonic() - start) * 1000
        pair_cost_observe(reranker.name, pairs=max(1, len(error.scores)), millis=millis)
        logger.warning("reranker %s stopped: %s", reranker.name, error)
        if len(error.scores) < MIN_PAIRS:
            return Reranked(order=order, kept=kept, note=_LATE, millis=millis)
        sized = f"Reranked the first {len(error.scores)} of {len(sendable)}: time ran out."
        sendable, scored = sendable[: len(error.scores)], Scored(error.scores)
        head, kept, top_n = _window(head, sendable)
    if scored.tokens:
        _charge(scored.tokens)
    scores = {f.fact_id: s for f, s in zip(sendable, scored.scores, strict=True)}
    new_head, ranks = _reordered(fused, rows, sendable, scores, top_n)
    rest = [pk for pk in order if pk not in set(new_head)]
    return Reranked(
        order=new_head + rest,
        applied=True,
        scores=scores,
        ranks=ranks,
        kept=kept,
        millis=millis,
        note=sized,
        pairs=len(sendable),
    )


def _window(head: list[Fused], sendable: list[Fused]) -> tuple[list[Fused], frozenset, int]:
    """The head cut after the last fact sent, the facts in it not sent, and its length."""
    head = head[: head.index(sendable[-1]) + 1]
    return head, frozenset(f.fact_id for f in head if f not in sendable), len(head)


def _reordered(
    fused: list[Fused],
    rows: dict[int, StoredFact],
    sendable: list[Fused],
    scores: dict[str, float],
    top_n: int,
) -> tuple[list[int], dict[str, int]]:
    """The first `top_n` rows with the sent ones in their blended order (the others keep their
    places), and the reranker's rank of each sent fact."""
    by_score = sorted(sendable, key=lambda f: (-scores[f.fact_id], fused.index(f)))
    ranks = {f.fact_id: rank for rank, f in enumerate(by_score, start=1)}
    blended = blend([f.fact_id for f in sendable], ranks)
    pk_of = {f.fact_id: f.pk for f in sendable}
    slots = iter(pk_of[fact_id] for fact_id in blended)
    sent = {f.pk for f in sendable}
    return [next(slots) if f.pk in sent else f.pk for f in fused[:top_n] if f.pk in rows], ranks


def _cap_spent() -> str:
    """The note when a remote reranker's daily cap is spent, else ""."""
    spent = _spent()
    cap = int(settings.RECALL_RERANK_DAILY_TOKENS)
    if spent < cap:
        return ""
    return f"Not reranked: the reranker's daily cap is spent ({spent:,} of {cap:,} tokens today)."


def _time_there() -> float:
    """Milliseconds reranking may take: RECALL_RERANK_TIMEOUT_MS, or less when a read's
    budget has less left (RESERVE_MS kept for the rest of recall)."""
    there = float(settings.RECALL_RERANK_TIMEOUT_MS)
    left = read_left_ms()
    return there if left is None else max(0.0, min(there, left - RESERVE_MS))


def _sized_note(reranker: Reranker, fit: int, wanted: int, there: float) -> str:
    return (
        f"Reranked the first {fit} of {wanted}: at about {pair_ms(reranker.name):.0f} ms a "
        f"pair here, {fit} fit in the {there:.0f} ms there was."
    )


def _unsized_note(reranker: Reranker, there: float) -> str:
    return (
        f"Not reranked: at about {pair_ms(reranker.name):.0f} ms a pair here, not even two "
        f"fit in the {there:.0f} ms there was; in the order of words and meaning."
    )


def blend(fused_order: list[str], reranker_rank: dict[str, int]) -> list[str]:
    """Fact ids (in the fusion's order) ordered by the blend of both ranks; ties keep the
    fusion's order."""

    def blended(item: tuple[int, str]) -> tuple[float, int]:
        place, fact_id = item
        score = 1 / (BLEND_K + place + 1) + RERANK_WEIGHT / (BLEND_K + reranker_rank[fact_id])
        return (-score, place)

    return [fact_id for _, fact_id in sorted(enumerate(fused_order), key=blended)]


def _sendable(
    head: list[Fused], rows: dict[int, StoredFact], reranker: Reranker, withheld: Withholding | None
) -> tuple[list[Fused], "list[str] | Cleared"]:
    """The head's facts the reranker may see, and their texts: what the read does not withhold
    to the bundled model; to a remote one, what the outgoing gate clears (no room, nothing
    personal), as the gate's `Cleared`."""
    head = [f for f in head if withheld is None or withheld.reason(rows[f.pk]) is None]
    if not reranker.remote:
        return head, [rows[f.pk].text for f in head]
    cleared = outgoing(
        [rows[f.pk] for f in head],
        ctx=None,
        personal=False,
        rule=withheld or withholding_for(person=None),
    )
    passed = {(fact.fact_id, fact.scope, fact.shard_bot) for fact in cleared.facts}
    sendable = [f for f in head if _key(rows[f.pk]) in passed]
    return sendable, cleared


def _key(fact: StoredFact) -> tuple[str, str, str]:
    return (fact.fact_id, fact.scope, fact.shard_bot)


def _spent(day: date | None = None) -> int:
    day = day or timezone.localdate()
    return RerankUsage.objects.filter(day=day).values_list("tokens", flat=True).first() or 0


def _charge(tokens: int) -> None:
    day = timezone.localdate()
    add = {"tokens": F("tokens") + tokens, "calls": F("calls") + 1}
    if RerankUsage.objects.filter(day=day).update(**add):
        return
    try:
        with transaction.atomic():
            RerankUsage.objects.create(day=day, tokens=tokens, calls=1)
    except IntegrityError:  # another process created today's row first
        RerankUsage.objects.filter(day=day).update(**add)
