"""Pure fusion of the lexical and semantic lists: weighted reciprocal-rank fusion and a floor.

No I/O and no Django. Each list is deduplicated by fact identity first (shards of a shared
scope may hold the same fact: the newest copy stands for it), then a fact scores
    dense_weight / (k + its rank by meaning) + lexical_weight / (k + its rank by words)
over the lists it is in, so a fact found both ways ranks highest. Words get half the say of
meaning: keyword-heavy noise otherwise drags paraphrase matches down. When the query names a
date ("in March", "on 1 February, 2023"), the candidates saved around then form a third list,
in fused order, with the same say as words. Ties break by date, then by identity: never by row id, so the
order does not depend on the order facts were indexed in.

The relevance floor keeps a semantic hit only if it is close to the best one and above an
absolute similarity below which matches are noise; every lexical hit shares a real word and
stays. Fewer results beat padded ones.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date

from memstore.facts.ranking import merge_newest

RRF_K = 10
DENSE_WEIGHT = 1.0
LEXICAL_WEIGHT = 0.5
DATE_WEIGHT = 0.5
# Cosines below the floor are noise. bge-small-en-v1.5 (query with its retrieval prefix):
# unrelated queries peak at 0.41-0.50 over a small memory, answers sit at 0.57 and up (95 % of
# the LoCoMo dev questions have a best hit above 0.62). Other models spread differently;
# settings.RECALL_COSINE_FLOOR overrides.
COSINE_FLOORS = {"bge-small-en-v1.5-int8/single": 0.55}
COSINE_FLOOR = 0.3  # a model without a measured floor
COSINE_MARGIN = 0.2


@dataclass(frozen=True, slots=True)
class Ranked:
    """A fact row in one list: its row id, identity, date and score in that list."""

    pk: int
    fact_id: str
    day: date
    score: float


@dataclass(frozen=True, slots=True)
class Fused:
    """A fact row after fusion, with what each list said about it."""

    pk: int
    fact_id: str
    day: date
    score: float
    lexical: float = 0.0  # 0: not found by words
    cosine: float | None = None  # None: not found by meaning (or no model)


def dense_floor(hits: list[Ranked], *, floor: float = COSINE_FLOOR, margin: float = COSINE_MARGIN):
    """The semantic hits worth keeping: above `floor` and within `margin` of the best."""
    if not hits:
        return []
    best = max(hit.score for hit in hits)
    cut = max(floor, best - margin)
    return [hit for hit in hits if hit.score >= cut]


def fuse(
    *,
    lexical: list[Ranked],
    dense: list[Ranked],
    dated: Callable[[date], bool] | None = None,
    k: float = RRF_K,
    lexical_weight: float = LEXICAL_WEIGHT,
    dense_weight: float = DENSE_WEIGHT,
    date_weight: float = DATE_WEIGHT,
) -> list[Fused]:
    """Weighted reciprocal-rank fusion of two ranked lists (best first in each), best first;
    `dated` says which days the query names. Ties go to the newer fact, then the lower identity."""
    lexical = merge_newest(hit for hit in lexical if hit.score > 0)
    dense = merge_newest(dense)
    scores: dict[str, float] = {}
    rows: dict[str, Ranked] = {}
    lexical_of: dict[str, float] = {}
    cosine_of: dict[str, float] = {}
    for rank, hit in enumerate(dense, start=1):
        scores[hit.fact_id] = scores.get(hit.fact_id, 0.0) + dense_weight / (k + rank)
        cosine_of[hit.fact_id] = hit.score
        rows[hit.fact_id] = hit
    for rank, hit in enumerate(lexical, start=1):
        scores[hit.fact_id] = scores.get(hit.fact_id, 0.0) + lexical_weight / (k + rank)
        lexical_of[hit.fact_id] = hit.score
        seen = rows.get(hit.fact_id)
        if seen is None or hit.day > seen.day:
            rows[hit.fact_id] = hit
    fused = [
        Fused(
            pk=rows[fact_id].pk,
            fact_id=fact_id,
            day=rows[fact_id].day,
            score=score,
            lexical=lexical_of.get(fact_id, 0.0),
            cosine=cosine_of.get(fact_id),
        )
        for fact_id, score in scores.items()
    ]
    fused.sort(key=_order)
    if dated is not None:
        inside = [f for f in fused if dated(f.day)]
        bonus = {f.fact_id: date_weight / (k + rank) for rank, f in enumerate(inside, start=1)}
        fused = sorted(
            (replace(f, score=f.score + bonus.get(f.fact_id, 0.0)) for f in fused), key=_order
        )
    return fused


def _order(fused: Fused) -> tuple:
    return (-fused.score, -fused.day.toordinal(), fused.fact_id)
