"""How well the duplicate rule does on a labelled set of pairs: precision and recall of a
suggested merge, by meaning or by words (what the tests and `bench upkeep` report)."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from memstore.upkeep.duplicates import conflicting, contained, likely, overlap, thresholds


def pair_scores(texts: Iterable[tuple[str, str]], embed=None) -> list[tuple[float, str, bool]]:
    """(score, by, conflict) for text pairs: the measurement the labelled set is run through.
    `embed(list[str]) -> unit vectors` scores by meaning; without it, by words."""
    texts = list(texts)
    if embed is None:
        return [(overlap(a, b), "words", conflicting(a, b)) for a, b in texts]
    first = embed([a for a, _ in texts])
    second = embed([b for _, b in texts])
    cosines = (np.asarray(first) * np.asarray(second)).sum(axis=1)
    return [
        (float(c), "meaning", conflicting(a, b)) for c, (a, b) in zip(cosines, texts, strict=True)
    ]


@dataclass(frozen=True, slots=True)
class Measured:
    """Precision and recall of duplicate detection at one threshold on a labelled set."""

    by: str
    threshold: float
    precision: float
    recall: float
    true_pos: int
    false_pos: int
    false_neg: int


def labelled_measure(
    labelled: Sequence[tuple[str, str, bool]], embed=None
) -> tuple[Measured, Measured]:
    """(certain, likely) precision and recall on pairs (first, second, is_duplicate)."""
    scores = pair_scores([(a, b) for a, b, _ in labelled], embed)
    by = scores[0][1] if scores else "words"
    floor = thresholds(by)
    results = []
    for level in ("certain", "likely"):
        tp = fp = fn = 0
        for (score, _, _), (a, b, same) in zip(scores, labelled, strict=True):
            said = likely(a, b, score, by) and (level == "likely" or contained(a, b))
            tp += said and same
            fp += said and not same
            fn += same and not said
        results.append(
            Measured(
                by,
                floor,
                round(tp / (tp + fp), 3) if tp + fp else 1.0,
                round(tp / (tp + fn), 3) if tp + fn else 1.0,
                tp,
                fp,
                fn,
            )
        )
    return results[0], results[1]
