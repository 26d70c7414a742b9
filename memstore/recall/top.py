"""The best rows of a scored array, in recall's tie order, without sorting every row.

Owns: `best_rows`, shared by both sides of in-process recall (`matrices`, `word_rank`): numpy
finds the rows that can be among the best `limit` by (score, date), newest first among equal
scores; only rows tied with the last of those on both are left for the caller's content key.

Does not: know what the rows are or read anything.
"""

import numpy as np


def best_rows(scores: np.ndarray, days: np.ndarray, limit: int) -> np.ndarray:
    """Indices of the rows that can be among the best `limit` by score (highest first), then
    date (newest first): the first `limit` in that order plus every row tied with the last of
    them on both. Rows scored -inf never qualify. The caller breaks the remaining ties."""
    rows = np.flatnonzero(np.isfinite(scores))
    if len(rows) > limit:
        cut = -np.partition(-scores[rows], limit - 1)[limit - 1]
        rows = rows[scores[rows] >= cut]
    order = rows[np.lexsort((-days[rows].astype(np.int64), -scores[rows]))]
    if len(order) > limit:
        score, day = scores[order[limit - 1]], days[order[limit - 1]]
        head = scores[order]
        order = order[(head > score) | ((head == score) & (days[order] >= day))]
    return order
