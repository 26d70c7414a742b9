"""Exact search by meaning in this process: one vector matrix per scope snapshot.

Owns: the per-process matrices (row i of a scope's matrix is row i of its `snapshot`), kept per
(database, model, scope) and rebuilt when the snapshot changes, reusing the vectors of the
identities it already held and fetching only new ones; and `matrices_search`, the cosine
ranking over them, which also says how many facts have no vector yet. A matrix product over
10,000 facts takes well under a millisecond.

Vectors are made in the background (`backfill`), never here: a fact without one is left out of
the ranking by meaning (words still find it). A matrix with such facts fetches them again at
most every `RECHECK_S` seconds, so meaning arrives in search soon after the backfill stores it.
Within a read's budget a rebuild fetches vectors for at most `FETCH_BUDGET_S` (a scope of 50,000
new vectors takes most of a second); the rest count as waiting and the next search goes on.

Results do not depend on the order facts were indexed in or rows come back from Postgres: ties
break by date, then the snapshot's content key (identity, scope, shard, file), never by row id
or position.

Does not: decide when the approximate HNSW path serves instead (see `vectors`), store vectors.
"""

import time
from dataclasses import dataclass
from datetime import date

import numpy as np
from django.db import connection

from memstore.index.sync import sync_is_skipped
from memstore.recall.embeddings import Embedder
from memstore.recall.lru import BuiltCache
from memstore.recall.snapshot import Snapshot
from memstore.recall.threads import recall_pool
from memstore.recall.top import best_rows

# Rows held per process before the least recently used scope's matrix goes: 1.5 KB each with
# a 384-dimension model, so up to about 450 MB for a process that serves many bots (a matrix
# rebuilt after eviction refetches its vectors: ~16 ms per 1,000 facts).
CACHE_MAX_FACTS = 300_000
RECHECK_S = 1.0  # a matrix with facts still waiting for vectors asks for them again this often
FETCH_CHUNK = 2_000  # vectors per statement when a matrix is (re)built
FETCH_BUDGET_S = 0.1  # within a read's budget a rebuild fetches this long; the rest next time


@dataclass(frozen=True, slots=True)
class VectorHit:
    """A fact row found by meaning: its index row id, identity, date and cosine similarity."""

    pk: int
    fact_id: str
    day: date
    cosine: float


@dataclass(frozen=True, slots=True)
class Nearest:
    """The rows nearest by meaning, and how many searched facts have no vector yet."""

    hits: list[VectorHit]
    waiting: int  # distinct identities among the searched facts (hidden ones too) without one


@dataclass(slots=True)
class _Matrix:
    snapshot: Snapshot
    matrix: np.ndarray  # (rows, dim) float32, L2-normalised; zero where `missing`
    missing: np.ndarray  # bool: no vector yet (the backfill has not reached it, or failed)
    waiting: int  # distinct identities of the missing rows
    built: float  # time.monotonic() when built
    added: int  # `_added` when built
    complete: bool  # False: the fetch stopped at FETCH_BUDGET_S (the next search goes on)


_cache: BuiltCache[_Matrix] = BuiltCache(CACHE_MAX_FACTS, size=lambda held: held.snapshot.rows)
_added = 0  # vectors stored by this process: a matrix waiting for some is rebuilt at once


def matrices_vectors_added() -> None:
    """Vectors were stored in this process: matrices still waiting for some look again now
    (another process's vectors are seen within RECHECK_S)."""
    global _added
    _added += 1


def matrices_search(
    snapshots: list[Snapshot],
    query: np.ndarray,
    embedder: Embedder,
    *,
    limit: int,
    include_hidden: bool,
    fetch,
) -> Nearest:
    """The `limit` rows of these snapshots nearest to the query vector, most similar first
    (ties: newer first, then by the snapshot's content key), and how many facts wait for a
    vector. `fetch(fact_ids)` gives the stored vectors of these identities (never computes)."""
    entries = [m for m in _current(snapshots, embedder, fetch) if m.snapshot.rows]
    if not entries:
        return Nearest(hits=[], waiting=0)
    waiting = sum(m.waiting for m in entries)
    scores = _products([m.matrix for m in entries], query)
    skip = np.concatenate(
        [m.missing if include_hidden else m.missing | m.snapshot.hidden for m in entries]
    )
    scores[skip] = -np.inf
    if skip.all():
        return Nearest(hits=[], waiting=waiting)
    return Nearest(hits=_top([m.snapshot for m in entries], scores, limit), waiting=waiting)


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
    now = time.monotonic()

    def fresh(held: _Matrix, snapshot: Snapshot) -> bool:
        if held.snapshot is not snapshot or not held.complete:
            return False
        return not held.waiting or (held.added == _added and now - held.built < RECHECK_S)

    return [
        _cache.get(
            (db, embedder.name, snapshot.key),
            fresh=lambda held, snapshot=snapshot: fresh(held, snapshot),
            build=lambda old, snapshot=snapshot: _rebuilt(embedder, snapshot, old, fetch),
        )
        for snapshot in snapshots
    ]


def _rebuilt(embedder: Embedder, snapshot: Snapshot, old: _Matrix | None, fetch) -> _Matrix:
    known: dict[str, np.ndarray] = {}
    if old is not None:
        held = old.snapshot.fact_ids
        known = {held[i]: old.matrix[i] for i in np.flatnonzero(~old.missing)}
    built, added = time.monotonic(), _added
    wanted = sorted(set(snapshot.fact_ids) - known.keys())
    complete, bounded = True, sync_is_skipped()
    for start in range(0, len(wanted), FETCH_CHUNK):
        if start and bounded and time.monotonic() - built >= FETCH_BUDGET_S:
            complete = False  # within a read's budget: the rest count as waiting this time
            break
        known.update(fetch(wanted[start : start + FETCH_CHUNK]))
    matrix = np.zeros((snapshot.rows, embedder.dim), dtype=np.float32)
    missing = np.ones(snapshot.rows, dtype=bool)
    for i, fact_id in enumerate(snapshot.fact_ids):
        vector = known.get(fact_id)
        if vector is not None:
            matrix[i] = vector
            missing[i] = False
    waiting = len(np.unique(snapshot.codes[missing])) if missing.any() else 0
    return _Matrix(
        snapshot=snapshot,
        matrix=matrix,
        missing=missing,
        waiting=waiting,
        built=built,
        added=added,
        complete=complete,
    )


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
