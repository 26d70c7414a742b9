"""Pure fusion of the lexical and semantic lists: weighted reciprocal-rank fusion and a floor.

No I/O and no Django. Each list is deduplicated by fact identity first (shards of a shared
scope may hold the same fact: the newest copy stands for it), then a fact scores
    dense_weight / (k + its rank by meaning) + lexical_weight / (k + its rank by words)
over the lists it is in, so a fact found both ways ranks highest. Words get half the say of
meaning: keyword-heavy noise otherwise drags paraphrase matches down. When the query names a
date ("in March", "on 1 February, 2023"), the candidates saved around then form a list of their
own, in fused order, with the same say as words. Facts still waiting for their full vector are
ranked by the static tier in a list of their own, with the say of words while no fact has its
full vector, rising to that of meaning as they get theirs (a fact leaves the list once its full
vector is there). Ties break by date, then by identity: never by row id, so the
order does not depend on the order facts were indexed in.

The relevance floor, fewer results beat padded ones, at any store size:
- a semantic hit stays only if it is close to the best one and above an absolute similarity
  below which matches are noise; when the list holds every fact searched (a small store),
  also only if it stands SEPARATION above the median fact: a query that matches nothing in
  particular ("restrat") sits near the median everywhere, however high that is;
- a lexical hit that meaning does not support (searched by meaning, not among its hits) stays
  only if it holds at least LEXICAL_COVERAGE of the query's term weight: "window seats
  flights" does not find "The card table in the lounge seats six" by "seats" alone;
- while the best word match waits for its full vector, a hit sharing no word with the query that
  clears the meaning floor by less than NARROW (by either tier) counts for no more than the
  second-best word match: it never ranks above the best one, which meaning could not judge yet.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date

from memstore.facts.ranking import merge_newest

RRF_K = 10
DENSE_WEIGHT = 1.0
LEXICAL_WEIGHT = 0.5
DATE_WEIGHT = 0.5
# The static tier's list, over waiting facts only: with the say of meaning when most facts have
# their full vector (the waiting ones must not be crowded out by them), with the say of words when
# none has (the tier alone is weaker than words); in between, by the share embedded.
STATIC_WEIGHT = 1.0
STATIC_WEIGHT_ALONE = 0.5
NARROW = 0.1  # a meaning-only hit this close above its floor is weak evidence
# Cosines below the floor are noise. bge-small-en-v1.5 (query with its retrieval prefix):
# unrelated queries peak at 0.41-0.50 over a small memory, answers sit at 0.57 and up (95 % of
# the LoCoMo dev questions have a best hit above 0.62). Other models spread differently;
# settings.RECALL_COSINE_FLOOR overrides.
COSINE_FLOORS = {"bge-small-en-v1.5-int8/single": 0.55}
COSINE_FLOOR = 0.3  # a model without a measured floor
COSINE_MARGIN = 0.2
SEPARATION = 0.12  # above the median fact, when every fact's cosine is known
MIN_BACKGROUND = 8  # facts it takes for a median to mean something
LEXICAL_COVERAGE = 0.5  # of the query's term weight, for a hit meaning does not support


@dataclass(frozen=True, slots=True)
class Ranked:
    """A fact row in one list: its row id, identity, date and score in that list (`coverage`:
    for a lexical hit, the share of the query's term weight it holds)."""

    pk: int
    fact_id: str
    day: date
    score: float
    coverage: float = 1.0


@dataclass(frozen=True, slots=True)
class Fused:
    """A fact row after fusion, with what each list said about it."""

    pk: int
    fact_id: str
    day: date
    score: float
    lexical: float = 0.0  # 0: not found by words
    cosine: float | None = None  # None: not found by meaning (or no model)
    lexical_rank: int | None = None  # its place in the words' list (1 = first), None: absent
    dense_rank: int | None = None  # its place in the meaning's list
    date_bonus: float = 0.0  # what the date the query names added to its score
    static_cosine: float | None = None  # waiting for its full vector: its static cosine
    static_rank: int | None = None  # its place in the static tier's list
    capped: bool = False  # a narrow meaning-only hit held below the best word match (waiting)


def dense_floor(
    hits: list[Ranked],
    *,
    floor: float = COSINE_FLOOR,
    margin: float = COSINE_MARGIN,
    complete: bool = False,
    separation: float = SEPARATION,
) -> list[Ranked]:
    """The semantic hits worth keeping: above `floor` and within `margin` of the best; when
    `complete` (the hits are every fact searched), also `separation` above their median."""
    if not hits:
        return []
    cut = dense_cut(hits, floor=floor, margin=margin, complete=complete, separation=separation)
    return [hit for hit in hits if hit.score >= cut]


def dense_cut(
    hits: list[Ranked],
    *,
    floor: float = COSINE_FLOOR,
    margin: float = COSINE_MARGIN,
    complete: bool = False,
    separation: float = SEPARATION,
) -> float:
    """The cosine a semantic hit must reach to be kept (see `dense_floor`); `floor` alone
    when there are no hits."""
    if not hits:
        return floor
    scores = sorted(hit.score for hit in hits)
    cut = max(floor, scores[-1] - margin)
    if complete and len(scores) >= MIN_BACKGROUND:
        cut = max(cut, scores[len(scores) // 2] + separation)
    return cut


def lexical_floor(
    lexical: list[Ranked], dense: list[Ranked], *, coverage: float = LEXICAL_COVERAGE
) -> list[Ranked]:
    """The lexical hits worth keeping once meaning was searched (`dense`: its kept hits): those
    meaning found too, and those holding at least `coverage` of the query's term weight."""
    supported = {hit.fact_id for hit in dense}
    return [hit for hit in lexical if hit.fact_id in supported or hit.coverage >= coverage]


@dataclass(frozen=True, slots=True)
class Waiting:
    """What fusion knows of the facts still waiting for their full vector: the static tier's
    hits (best first) and floor, the identities of the words' hits that wait, and the full
    model's floor."""

    static: list[Ranked]
    words_waiting: frozenset[str] = frozenset()
    dense_cut: float | None = None
    static_cut: float | None = None
    embedded: float = 1.0  # the share of the searched facts that have their full vector

    @property
    def weight(self) -> float:
        """The static list's say (see STATIC_WEIGHT)."""
        return STATIC_WEIGHT_ALONE + (STATIC_WEIGHT - STATIC_WEIGHT_ALONE) * self.embedded


def fuse(
    *,
    lexical: list[Ranked],
    dense: list[Ranked],
    dated: Callable[[date], bool] | None = None,
    waiting: Waiting | None = None,
    k: float = RRF_K,
    lexical_weight: float = LEXICAL_WEIGHT,
    dense_weight: float = DENSE_WEIGHT,
    date_weight: float = DATE_WEIGHT,
    static_weight: float | None = None,
) -> list[Fused]:
    """Weighted reciprocal-rank fusion of the ranked lists (best first in each), best first;
    `dated` says which days the query names, `waiting` what is known of facts without a full
    vector. Ties go to the newer fact, then the lower identity."""
    lexical = merge_newest(hit for hit in lexical if hit.score > 0)
    scores: dict[str, float] = {}
    rows: dict[str, Ranked] = {}
    cosine_of, dense_rank = _credited(merge_newest(dense), dense_weight, k, scores, rows)
    if static_weight is None:
        static_weight = waiting.weight if waiting is not None else STATIC_WEIGHT
    # A fact whose full vector arrived meanwhile was judged by meaning: not by the static tier.
    static = [
        h for h in merge_newest(waiting.static if waiting else []) if h.fact_id not in cosine_of
    ]
    static_of, static_rank = _credited(static, static_weight, k, scores, rows)
    lexical_of, lexical_rank = _credited(lexical, lexical_weight, k, scores, rows, newer=True)
    fused = [
        Fused(
            pk=rows[fact_id].pk,
            fact_id=fact_id,
            day=rows[fact_id].day,
            score=score,
            lexical=lexical_of.get(fact_id, 0.0),
            cosine=cosine_of.get(fact_id),
            lexical_rank=lexical_rank.get(fact_id),
            dense_rank=dense_rank.get(fact_id),
            static_cosine=static_of.get(fact_id),
            static_rank=static_rank.get(fact_id),
        )
        for fact_id, score in scores.items()
    ]
    if waiting is not None and lexical and lexical[0].fact_id in waiting.words_waiting:
        fused = _narrow_capped(fused, waiting, lexical_weight / (k + 2))
    fused.sort(key=_order)
    return fused if dated is None else _dated(fused, dated, date_weight, k)


def _credited(
    hits: list[Ranked],
    weight: float,
    k: float,
    scores: dict[str, float],
    rows: dict[str, Ranked],
    *,
    newer: bool = False,
) -> tuple[dict[str, float], dict[str, int]]:
    """Add one list's reciprocal-rank credit to `scores` (keeping a row per fact in `rows`; with
    `newer`, the newer of two rows); each fact's score and place in the list."""
    score_of: dict[str, float] = {}
    rank_of: dict[str, int] = {}
    for rank, hit in enumerate(hits, start=1):
        scores[hit.fact_id] = scores.get(hit.fact_id, 0.0) + weight / (k + rank)
        score_of[hit.fact_id] = hit.score
        rank_of[hit.fact_id] = rank
        seen = rows.get(hit.fact_id)
        if seen is None or not newer or hit.day > seen.day:
            rows[hit.fact_id] = hit
    return score_of, rank_of


def _dated(fused: list[Fused], dated: Callable[[date], bool], weight: float, k: float) -> list:
    """The candidates saved on a day the query names, credited as a list of their own."""
    inside = [f for f in fused if dated(f.day)]
    bonus = {f.fact_id: weight / (k + rank) for rank, f in enumerate(inside, start=1)}
    return sorted(
        (
            replace(f, score=f.score + bonus[f.fact_id], date_bonus=bonus[f.fact_id])
            if f.fact_id in bonus
            else f
            for f in fused
        ),
        key=_order,
    )


def _narrow_capped(fused: list[Fused], waiting: Waiting, cap: float) -> list[Fused]:
    """Hits sharing no word with the query that clear their tier's floor by less than NARROW,
    their scores scaled down to at most `cap` (the second-best word match's credit)."""

    def narrow(f: Fused) -> bool:
        if f.lexical_rank is not None:
            return False
        if f.cosine is not None:
            return waiting.dense_cut is not None and f.cosine < waiting.dense_cut + NARROW
        return (
            f.static_cosine is not None
            and waiting.static_cut is not None
            and f.static_cosine < waiting.static_cut + NARROW
        )

    over = [f.score for f in fused if f.score > cap and narrow(f)]
    if not over:
        return fused
    # Scaled, not clipped: the capped hits keep their order among themselves.
    top = max(over)
    return [
        replace(f, score=cap * f.score / top, capped=True) if f.score > cap and narrow(f) else f
        for f in fused
    ]


def _order(fused: Fused) -> tuple:
    return (-fused.score, -fused.day.toordinal(), fused.fact_id)
