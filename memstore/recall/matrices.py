"""Exact search by meaning in this process: one vector matrix per scope snapshot.

Owns: the per-process matrices (row i of a scope's matrix is row i of its `snapshot`), kept per
(database, model, scope) and rebuilt when the snapshot changes, reusing the vectors of the
identities it already held and fetching (or computing) only new ones; and `matrices_search`,
the cosine ranking over them. A matrix product over 10,000 facts takes well under a millisecond.

Results do not depend on the order facts were indexed in or rows come back from Postgres: ties
break by date, then the snapshot's content key (identity, scope, shard, file), never by row id
or position.

Does not: decide when the approximate HNSW path serves instead (see `vectors`), store vectors.
"""

from dataclasses import dataclass
from datetime import date

import numpy as np
from django.db import connection

from memstore.recall.embeddings import Embedder
from memstore.recall.lru import BuiltCache
from memstore.recall.snapshot import Snapshot
from memstore.recall.threads import recall_pool
from memstore.recall.top import best_rows

# Rows held per process before the least recently used scope's matrix goes: 1.5 KB each with
# a 384-dimension model, so up to about 450 MB for a process that serves many bots (a matrix
# rebuilt after eviction refetches its vectors: ~16 ms per 1,000 facts).
CACHE_MAX_FACTS = 300_000


@dataclass(frozen=True, slots=True)
class VectorHit:
    """A fact row found by meaning: its index row id, identity, date and cosine similarity."""

    pk: int
    fact_id: str
    day: date
    cosine: float


@dataclass(slots=True)
class _Matrix:
    snapshot: Snapshot
    matrix: np.ndarray  # (rows, dim) float32, L2-normalised; zero where `missing`
    missing: np.ndarray  # bool: no vector (the model failed on that fact)


_cache: BuiltCache[_Matrix] = BuiltCache(CACHE_MAX_FACTS, size=lambda held: held.snapshot.rows)


def matrices_search(
    snapshots: list[Snapshot],
    query: np.ndarray,
    embedder: Embedder,
    *,
    limit: int,
    include_hidden: bool,
    fetch,
) -> list[VectorHit]:
    """The `limit` rows of these snapshots nearest to the query vector, most similar first
    (ties: newer first, then by the snapshot's content key). `fetch(fact_ids, scope_key)` gives
    the vectors of these identities of that scope, computing the missing ones it can."""
    entries = [m for m in _current(snapshots, embedder, fetch) if m.snapshot.rows]
    if not entries:
        return []
    scores = _products([m.matrix for m in entries], query)
    skip = np.concatenate(
        [m.missing if include_hidden else m.missing | m.snapshot.hidden for m in entries]
    )
    scores[skip] = -np.inf
    return _top([m.snapshot for m in entries], scores, limit)


PARALLEL_MIN_ROWS = 4_000  # below this, handing half the product to another thread costs more


def _products(matrices: list[np.ndarray], query: np.ndarray) -> np.ndarray:
    """Every row's cosine with the query, the first half of each matrix's rows computed on the
    recall pool beside the second (each row's product alone decides its value, so the split
    changes no bit). einsum, not BLAS: BLAS would start worker threads that keep spinning after
    the product and, on a small box, take the CPU Postgres and the next query need."""
    if sum(len(m) for m in matrices) < PARALLEL_MIN_ROWS:
        return np.concatenate([np.einsum("ij,j->i", m, query) for m in matrices])

    def products(parts: list[np.ndarray]) -> list[np.ndarray]:
        return [np.einsum("ij,j->i", part, query) for part in parts]

    heads = recall_pool().submit(products, [m[: len(m) // 2] for m in matrices])
    tails = products([m[len(m) // 2 :] for m in matrices])
    return np.concatenate([x for pair in zip(heads.result(), tails, strict=True) for x in pair])


def _current(snapshots: list[Snapshot], embedder: Embedder, fetch) -> list[_Matrix]:
    db = connection.settings_dict["NAME"]
    return [
        _cache.get(
            (db, embedder.name, snapshot.key),
            fresh=lambda held, snapshot=snapshot: held.snapshot is snapshot,
            build=lambda old, snapshot=snapshot: _rebuilt(embedder, snapshot, old, fetch),
        )
        for snapshot in snapshots
    ]


def _rebuilt(embedder: Embedder, snapshot: Snapshot, old: _Matrix | None, fetch) -> _Matrix:
    known: dict[str, np.ndarray] = {}
    if old is not None:
        held = old.snapshot.fact_ids
        known = {held[i]: old.matrix[i] for i in np.flatnonzero(~old.missing)}
    wanted = sorted(set(snapshot.fact_ids) - known.keys())
    if wanted:
        known.update(fetch(wanted, snapshot.key))
    matrix = np.zeros((snapshot.rows, embedder.dim), dtype=np.float32)
    missing = np.ones(snapshot.rows, dtype=bool)
    for i, fact_id in enumerate(snapshot.fact_ids):
        vector = known.get(fact_id)
        if vector is not None:
            matrix[i] = vector
            missing[i] = False
    return _Matrix(snapshot=snapshot, matrix=matrix, missing=missing)


def _top(snapshots: list[Snapshot], scores: np.ndarray, limit: int) -> list[VectorHit]:
    """The best `limit` rows; rows tied with the last one on cosine and date compete on the
    content key."""
    days = np.concatenate([s.days for s in snapshots])
    starts = np.cumsum([0] + [s.rows for s in snapshots])
    best = best_rows(scores, days, limit)
    ranked = []
    for i, which in zip(best, np.searchsorted(starts, best, side="right") - 1, strict=True):
        snapshot, row = snapshots[which], int(i - starts[which])
        day = int(days[i])
        hit = VectorHit(
            pk=int(snapshot.pks[row]),
            fact_id=snapshot.fact_ids[row],
            day=date.fromordinal(day),
            cosine=float(scores[i]),
        )
        ranked.append(((-hit.cosine, -day, snapshot.keys[row]), hit))
    ranked.sort(key=lambda pair: pair[0])
    return [hit for _, hit in ranked[:limit]]


def matrices_clear() -> None:
    """Forget every matrix in this process (tests, after a model change)."""
    _cache.clear()
