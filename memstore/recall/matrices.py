"""Search by meaning in this process: one vector matrix per scope snapshot (exact below
`BITS_MIN_ROWS` rows; above, on the vectors' sign bits first, then exact cosines).

Owns: the per-process matrices (row i of a scope's matrix is row i of its `snapshot`), kept per
(database, model, scope) and rebuilt when the snapshot changes, reusing the vectors of the
identities it already held and fetching only new ones; and `matrices_search`, the cosine
ranking over them, which also says how many facts have no vector yet. A matrix product over
10,000 facts takes well under a millisecond.

Vectors are made in the background (`backfill`), never here: a fact without one is left out of
the ranking by meaning (words still find it). A matrix with such facts fetches them again at
most every `RECHECK_S` seconds (a matrix over 10,000 rows every rows / 10,000 seconds), so
meaning arrives in search soon after the backfill stores it.
Within a read's budget a rebuild fetches vectors for at most `FETCH_BUDGET_S` (a scope of 50,000
new vectors takes most of a second); the rest count as waiting and the next search goes on.

From `BITS_MIN_ROWS` rows on (10,000: a bot reading a team's 12,000 facts, a 100,000-fact
scope) the product is not taken over every row: each matrix also holds the sign bits of its
vectors (48 bytes a row at 384 dimensions), the rows nearest the query by Hamming distance on
those bits are found with numpy's bit counts, and only they (every row within the distance of
the `RESCORED`-th nearest, ties included) are scored by their exact cosine. On bge-small's
vectors that finds the exact product's best 10 rows and 99 % or more of its best 100 (measured
by `python -m bench recall`), in about a tenth of the time at 100,000 rows, reading 48 bytes a
row instead of 1,536. The HNSW statement it replaces from 20,000 facts on was approximate too,
and cost a round trip and most of a search's time.

Results do not depend on the order facts were indexed in or rows come back from Postgres: ties
break by date, then the snapshot's content key (identity, scope, shard, file), never by row id
or position; the rows rescored are chosen by distance alone, ties included.

Does not: decide when Postgres's HNSW index serves instead (see `vectors`), store vectors.
"""

import logging
import threading
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

logger = logging.getLogger(__name__)

# Rows held per process before the least recently used scope's matrix goes: 1.5 KB each with
# a 384-dimension model, so up to about 450 MB for a process that serves many bots (a matrix
# rebuilt after eviction refetches its vectors: ~16 ms per 1,000 facts).
CACHE_MAX_FACTS = 300_000
RECHECK_S = 1.0  # a matrix with facts still waiting for vectors asks for them again this often
RECHECK_ROWS_PER_S = 10_000  # ... or, for a larger one, every (rows / this) seconds
FETCH_CHUNK = 2_000  # vectors per statement when a matrix is (re)built
FETCH_BUDGET_S = 0.1  # within a read's budget a rebuild fetches this long; the rest next time
BITS_MIN_ROWS = 10_000  # from this many rows, rank on the sign bits first, then rescore
RESCORED = 2_000  # rows nearest by the bits that get their exact cosine (with ties: a few more)


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
    bits: np.ndarray  # (words, rows) uint64: each row's sign bits, word by word (`_signs`)
    missing: np.ndarray  # bool: no vector yet (the backfill has not reached it, or failed)
    skipped: np.ndarray  # bool: missing or hidden (the rows a bot's search leaves out)
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
    skip = np.concatenate([m.missing if include_hidden else m.skipped for m in entries])
    if skip.all():
        return Nearest(hits=[], waiting=waiting)
    if len(skip) >= BITS_MIN_ROWS:
        rows = _near_by_bits(entries, query, skip)
        scores = _rescored(entries, rows, query)
        return Nearest(
            hits=_top([m.snapshot for m in entries], scores, limit, rows), waiting=waiting
        )
    scores = _products([m.matrix for m in entries], query)
    scores[skip] = -np.inf
    return Nearest(hits=_top([m.snapshot for m in entries], scores, limit), waiting=waiting)


def matrices_waiting(
    snapshots: list[Snapshot],
    query: np.ndarray,
    tier: Embedder,
    full: Embedder,
    *,
    limit: int,
    include_hidden: bool,
    fetch,
) -> tuple[list[VectorHit], int]:
    """The `limit` rows nearest by `tier`'s vectors among the rows that have none under `full`
    yet (its matrices as this process holds them: a row whose full vector is not seen here yet
    counts as waiting), and how many distinct waiting facts the tier could rank. Exact cosines:
    the waiting rows of a drop-in are few enough, and the tier's vectors are short."""
    db = connection.settings_dict["NAME"]
    entries = [m for m in _current(snapshots, tier, fetch) if m.snapshot.rows]
    heads, ranked, served = [], [], 0
    for m in entries:
        held = _cache.peek((db, full.name, m.snapshot.key))
        waiting = held.missing if held is not None and held.snapshot is m.snapshot else None
        if waiting is None:
            waiting = np.ones(m.snapshot.rows, dtype=bool)
        usable = waiting & ~m.missing
        served += len(np.unique(m.snapshot.codes[usable])) if usable.any() else 0
        heads.append(m.snapshot)
        ranked.append(usable if include_hidden else usable & ~m.snapshot.hidden)
    if not heads or not any(mask.any() for mask in ranked):
        return [], served
    keep = np.concatenate(ranked)
    scores = _products([m.matrix for m in entries], query)
    scores[~keep] = -np.inf
    hits = [hit for hit in _top(heads, scores, limit) if hit.cosine > -np.inf]
    return hits, served


def matrices_held(snapshots: list[Snapshot], embedder: Embedder) -> bool:
    """Whether this process holds every one of these snapshots' matrices as they are, so a
    search needs no rebuild (for a 100,000-fact scope a rebuild lays out a new 150 MB matrix:
    0.5-2.5 s on a small VM, where fresh memory is slow to touch)."""
    db, now = connection.settings_dict["NAME"], time.monotonic()
    for snapshot in snapshots:
        held = _cache.peek((db, embedder.name, snapshot.key))
        if held is None or not _fresh(held, snapshot, now):
            return False
    return True


_building: set[tuple] = set()  # (database, model, scopes) being built behind a search
_building_lock = threading.Lock()


def matrices_build_behind(snapshots: list[Snapshot], embedder: Embedder, fetch) -> None:
    """Build these scopes' matrices on a background thread (with its own connection), so a
    budgeted read is not held up by fetching 100,000 vectors; a second call for the same scopes
    meanwhile does nothing."""
    key = (connection.settings_dict["NAME"], embedder.name, tuple(s.key for s in snapshots))
    with _building_lock:
        if key in _building:
            return
        _building.add(key)

    def build() -> None:
        try:
            _current(snapshots, embedder, fetch)
        except Exception:
            logger.exception("could not build the vector matrices of %s", ", ".join(key[2]))
        finally:
            connection.close()  # this thread's own connection
            with _building_lock:
                _building.discard(key)

    threading.Thread(target=build, name="memstore-matrix", daemon=True).start()


def matrices_building() -> bool:
    """Whether a matrix is being built on a background thread (tests, benchmarks)."""
    with _building_lock:
        return bool(_building)


def _signs(matrix: np.ndarray) -> np.ndarray:
    """Each row's sign bits (1: the component is above zero), packed into uint64 words and
    laid out word by word, (words, rows): a distance is then a few passes over contiguous
    arrays (a sum across each row's six words is ten times slower)."""
    packed = np.packbits(matrix > 0, axis=-1)
    pad = -packed.shape[-1] % 8
    if pad:
        packed = np.pad(packed, [(0, 0), (0, pad)])
    return np.ascontiguousarray(np.ascontiguousarray(packed).view(np.uint64).T)


def _near_by_bits(entries: list[_Matrix], query: np.ndarray, skip: np.ndarray) -> np.ndarray:
    """The rows (indices into the concatenated matrices) worth an exact cosine: every row not
    skipped within the Hamming distance of the RESCORED-th nearest to the query's sign bits,
    ascending. Chosen by distance alone, so tied rows are all in or all out."""
    signs = _signs(query[None, :])[:, 0]
    distances = np.concatenate([_distances(m.bits, signs) for m in entries])
    worst = 64 * len(signs) + 1
    distances[skip] = worst
    counts = np.cumsum(np.bincount(distances, minlength=worst + 1))
    cut = int(np.searchsorted(counts, min(RESCORED, int(counts[worst - 1]))))
    return np.flatnonzero(distances <= min(cut, worst - 1))


def _distances(bits: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """Hamming distances (uint16) between every row's sign bits and the query's."""
    distances = np.bitwise_count(bits[0] ^ signs[0]).astype(np.uint16)
    for word in range(1, len(signs)):
        distances += np.bitwise_count(bits[word] ^ signs[word])
    return distances


def _rescored(entries: list[_Matrix], rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The exact cosines of these rows (as `_products` gives them: row by row, the same bits)."""
    starts = np.cumsum([0] + [len(m.matrix) for m in entries])
    which = np.searchsorted(starts, rows, side="right") - 1
    parts = []
    for i, m in enumerate(entries):
        at = rows[which == i] - starts[i]
        if len(at):
            # take, not fancy indexing: the same rows copied, in about half the time.
            parts.append(np.einsum("ij,j->i", np.take(m.matrix, at, axis=0), query))
    return np.concatenate(parts)


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


def _fresh(held: _Matrix, snapshot: Snapshot, now: float) -> bool:
    """Whether a held matrix serves this snapshot as it is (no rebuild due)."""
    if held.snapshot is not snapshot or not held.complete:
        return False
    # A large matrix is re-laid less often while its facts wait (every 10 s at 100,000 rows):
    # each rebuild writes a whole new matrix, and the backfill may take minutes.
    recheck = max(RECHECK_S, held.snapshot.rows / RECHECK_ROWS_PER_S)
    return not held.waiting or (held.added == _added and now - held.built < recheck)


def _current(snapshots: list[Snapshot], embedder: Embedder, fetch) -> list[_Matrix]:
    db = connection.settings_dict["NAME"]
    now = time.monotonic()
    return [
        _cache.get(
            (db, embedder.name, snapshot.key),
            fresh=lambda held, snapshot=snapshot: _fresh(held, snapshot, now),
            build=lambda old, snapshot=snapshot: _rebuilt(embedder, snapshot, old, fetch),
        )
        for snapshot in snapshots
    ]


def _rebuilt(embedder: Embedder, snapshot: Snapshot, old: _Matrix | None, fetch) -> _Matrix:
    matrix = np.zeros((snapshot.rows, embedder.dim), dtype=np.float32)
    bits = np.zeros((-(-embedder.dim // 64), snapshot.rows), dtype=np.uint64)
    missing = np.ones(snapshot.rows, dtype=bool)
    if old is not None:  # the identities held before keep their vectors and bits
        have = np.flatnonzero(~old.missing)
        at = _matching(old.snapshot.codes[have], snapshot.codes)
        found = at >= 0
        matrix[found] = old.matrix[have[at[found]]]
        bits[:, found] = old.bits[:, have[at[found]]]
        missing[found] = False
    built, added = time.monotonic(), _added
    wanted = sorted(set(snapshot.fact_ids[missing].tolist()))
    known: dict[str, np.ndarray] = {}
    complete, bounded = True, sync_is_skipped()
    for start in range(0, len(wanted), FETCH_CHUNK):
        if start and bounded and time.monotonic() - built >= FETCH_BUDGET_S:
            complete = False  # within a read's budget: the rest count as waiting this time
            break
        known.update(fetch(wanted[start : start + FETCH_CHUNK]))
    if known:
        codes = np.fromiter((int(fact_id, 16) for fact_id in known), np.uint64, len(known))
        at = _matching(codes, snapshot.codes)
        filled = np.flatnonzero(missing & (at >= 0))
        fetched = np.empty((len(known), embedder.dim), dtype=np.float32)
        for i, vector in enumerate(known.values()):
            fetched[i] = vector  # (Postgres sends big-endian floats: np.stack is 20x slower)
        matrix[filled] = fetched[at[filled]]
        bits[:, filled] = _signs(matrix[filled])
        missing[filled] = False
    waiting = len(np.unique(snapshot.codes[missing])) if missing.any() else 0
    return _Matrix(
        snapshot=snapshot,
        matrix=matrix,
        bits=bits,
        missing=missing,
        skipped=missing | snapshot.hidden,
        waiting=waiting,
        built=built,
        added=added,
        complete=complete,
    )


def _matching(held: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """For each of `codes` (identity codes), its index in `held`, or -1 when not there."""
    if not len(held):
        return np.full(len(codes), -1, dtype=np.int64)
    order = np.argsort(held, kind="stable")
    ordered = held[order]
    at = np.searchsorted(ordered, codes).clip(0, len(held) - 1)
    return np.where(ordered[at] == codes, order[at], -1)


def _top(
    snapshots: list[Snapshot], scores: np.ndarray, limit: int, rows: np.ndarray | None = None
) -> list[VectorHit]:
    """The best `limit` rows; rows tied with the last one on cosine and date compete on the
    content key. `rows`: the (concatenated) row each score is for, when not every row's is."""
    days = snapshots[0].days if len(snapshots) == 1 else np.concatenate([s.days for s in snapshots])
    if rows is not None:
        days = days[rows]
    starts = np.cumsum([0] + [s.rows for s in snapshots])
    best = best_rows(scores, days, limit)
    at = best if rows is None else rows[best]
    which = np.searchsorted(starts, at, side="right") - 1
    ranked = []
    # Per snapshot, its rows' values turned to Python ones in one go (not a numpy scalar at a
    # time): the pool is as long as the ties at the cut.
    for w in np.unique(which).tolist():
        snapshot, mine = snapshots[w], which == w
        local = (at[mine] - starts[w]).tolist()
        for row, pk, day, cosine in zip(
            local,
            snapshot.pks[local].tolist(),
            days[best[mine]].tolist(),
            scores[best[mine]].tolist(),
            strict=True,
        ):
            hit = VectorHit(
                pk=pk, fact_id=snapshot.fact_ids[row], day=date.fromordinal(day), cosine=cosine
            )
            ranked.append(((-cosine, -day, snapshot.keys[row]), hit))
    ranked.sort(key=lambda pair: pair[0])
    return [hit for _, hit in ranked[:limit]]


def matrices_clear() -> None:
    """Forget every matrix in this process (tests, after a model change)."""
    _cache.clear()
