"""The semantic side of recall: fact vectors, cached by identity, and nearest-neighbour search.

Owns: which embedder the settings name (`embedder_current`), computing and storing vectors for
facts that have none (`vectors_ensure`: the backfill and bulk commands call it, never a
request), cosine search over the facts of some scopes (`vectors_search`), and how many of them
still wait for a vector (`vectors_waiting`).

Vectors live in `memstore_embedding`, keyed by (model, fact identity): a rebuild of the index,
a fact moved between files or the same text saved in another scope never recomputes one. The
model name says how a vector was made (the bundled model embeds one text per run), so vectors
made another way are never mixed in.

Search runs in this process over one matrix per scope snapshot (`matrices`, where only new
identities are fetched when a scope changes; ties break by date, then a content key, never by
row id): exact below 10,000 searched facts, and from there on the vectors' sign bits first, then
the exact cosines of the nearest 2,000. Searches over more facts than a process holds
(`LOCAL_MAX_FACTS`), and a search of 20,000 facts or more while its matrices are built or
brought up to date behind it (the first search, the first after a write), go to Postgres when
pgvector has an HNSW index for the model and the searched scopes hold at least a quarter of the
workspace's vectors: it finds the nearest vectors approximately and they are filtered to the
searched scopes. That path's graph depends on the
order vectors were inserted, so after a rebuild of the embedding table such a search may find a
slightly different pool.

Does not: match words, fuse or rank (see `lexical`, `fusion`), decide who may read what (callers
pass scopes), or write index rows.
"""

import logging
import os
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from weakref import WeakKeyDictionary

import numpy as np
from django.conf import settings
from django.db import connection

from memstore.facts.markdown import FactLine
from memstore.facts.paths import Scope
from memstore.models import Embedding
from memstore.recall.embeddings import Embedder, embedder_load
from memstore.recall.matrices import (
    CACHE_MAX_FACTS,
    RECHECK_S,
    Nearest,
    VectorHit,
    matrices_build_behind,
    matrices_clear,
    matrices_held,
    matrices_search,
    matrices_vectors_added,
)
from memstore.recall.snapshot import Snapshot, snapshots_clear, snapshots_current
from memstore.recall.vector_copy import vectors_copy
from memstore.recall.versions import versions_read
from memstore.rooms.outgoing import Cleared, passages_cleared

logger = logging.getLogger(__name__)

EMBED_BATCH = 256
COPY_MIN_ROWS = 200  # from this many vectors at once, one binary COPY (`vector_copy`)
ANN_MIN_FACTS = 20_000  # below this an exact scan in this process is as fast and exact
ANN_MIN_SHARE = 0.25  # the HNSW pool is filtered to the searched scopes: they must be a big part
ANN_POOL_MAX = 1000  # pgvector's largest hnsw.ef_search
LOCAL_MAX_FACTS = CACHE_MAX_FACTS  # searched facts ranked in this process, not by the HNSW index
# HNSW indexes the recall migration creates, by model name: (index name, dimension).
ANN_INDEXES = {
    "bge-small-en-v1.5-int8/single": ("memstore_embedding_bge_small_single_hnsw", 384),
}


def embedder_current() -> Embedder | None:
    """The embedder settings.EMBEDDINGS names, loaded once per process; None means words only."""
    return embedder_load(
        settings.EMBEDDINGS,
        base_url=settings.EMBEDDINGS_BASE_URL,
        api_key=settings.EMBEDDINGS_API_KEY,
    )


_storage_by_db: dict[str, str] = {}


def _storage() -> str:
    """'vector' when the column is pgvector's type, else 'bytea' (the migration decided)."""
    name = connection.settings_dict["NAME"]
    if name not in _storage_by_db:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                "WHERE attrelid = 'memstore_embedding'::regclass AND attname = 'vector'"
            )
            _storage_by_db[name] = (
                "vector" if cursor.fetchone()[0].startswith("vector") else "bytea"
            )
    return _storage_by_db[name]


def _encode(vector: np.ndarray, storage: str) -> str | bytes:
    if storage == "vector":
        return "[" + ",".join(map(repr, vector.tolist())) + "]"
    return vector.astype("<f4").tobytes()


def _decode(raw: bytes | memoryview, storage: str, dim: int) -> np.ndarray:
    if storage == "vector":
        # vector_send: int16 dim, int16 unused, then dim big-endian float4.
        return np.frombuffer(raw, dtype=">f4", count=dim, offset=4)
    return np.frombuffer(raw, dtype="<f4", count=dim)


def _select_vector() -> str:
    return "vector_send(vector)" if _storage() == "vector" else "vector"


def _chunks[T](items: list[T], size: int) -> Iterable[list[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def vectors_ensure(
    texts: Mapping[str, str], *, embedder: Embedder | None = None, threads: int = 1
) -> int:
    """Compute and store vectors for the fact identities in `texts` (identity -> fact text)
    that have none yet under the current model; returns how many were computed. With
    `threads` > 1 a model that embeds one text per run (the bundled one) runs on that many
    threads at once: each vector is still made alone, so they are the same bits."""
    embedder = embedder or embedder_current()
    if embedder is None or not texts:
        return 0
    have: set[str] = set()
    for chunk in _chunks(list(texts), 5000):
        have.update(_embedding_rows(embedder.name, chunk).values_list("fact_id", flat=True))
    missing = [fact_id for fact_id in texts if fact_id not in have]
    for chunk in _chunks(missing, EMBED_BATCH):
        # The tier tag ("[note] ...") says nothing about meaning; embed the body.
        bodies = [FactLine(day=date.min, text=texts[fact_id]).body for fact_id in chunk]
        chunk, sent = passages_cleared(embedder, chunk, bodies)
        vectors_store(embedder, chunk, vectors_embedded(embedder, sent, threads))
    return len(missing)


_pools: dict[tuple[int, int], ThreadPoolExecutor] = {}  # (process, threads) -> pool


def vectors_embedded(
    embedder: Embedder, bodies: "list[str] | Cleared", threads: int = 1
) -> np.ndarray:
    """The passages' vectors, on `threads` threads when the model embeds one text per run."""
    if isinstance(bodies, Cleared):
        return embedder.embed_passages(bodies)  # type: ignore[arg-type]
    if threads <= 1 or len(bodies) < 2 or not getattr(embedder, "one_per_run", False):
        return embedder.embed_passages(bodies)
    key = (os.getpid(), threads)
    pool = _pools.get(key) or _pools.setdefault(
        key, ThreadPoolExecutor(max_workers=threads, thread_name_prefix="embed")
    )
    # Interleaved shares, so every thread gets texts of every length.
    parts = list(pool.map(embedder.embed_passages, [bodies[i::threads] for i in range(threads)]))
    result = np.empty((len(bodies), embedder.dim), dtype=np.float32)
    for i, part in enumerate(parts):
        result[i::threads] = part
    return result


def _embedding_rows(model: str, fact_ids: list[str]):
    return Embedding.objects.filter(model=model, fact_id__in=fact_ids)


def vectors_store(embedder: Embedder, fact_ids: list[str], vectors: np.ndarray) -> None:
    """Store these facts' vectors (one row each; a vector stored meanwhile is kept)."""
    storage = _storage()
    if storage == "vector" and len(fact_ids) >= COPY_MIN_ROWS:
        vectors_copy(embedder.name, fact_ids, vectors)
        matrices_vectors_added()
        _waiting.clear()
        return
    cast = "::vector" if storage == "vector" else ""
    rows = [
        (embedder.name, fact_id, int(vector.shape[0]), _encode(vector, storage))
        for fact_id, vector in zip(fact_ids, vectors, strict=True)
    ]
    with connection.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO memstore_embedding (model, fact_id, dim, vector) "
            f"VALUES (%s, %s, %s, %s{cast}) ON CONFLICT (model, fact_id) DO NOTHING",
            rows,
        )
    matrices_vectors_added()
    _waiting.clear()


def vectors_fetch(model: str, fact_ids: list[str]) -> dict[str, np.ndarray]:
    """Stored vectors for these identities under one model (missing ones are left out)."""
    found: dict[str, np.ndarray] = {}
    column = _select_vector()
    storage = _storage()
    with connection.cursor() as cursor:
        for chunk in _chunks(fact_ids, 5000):
            cursor.execute(
                f"SELECT fact_id, dim, {column} FROM memstore_embedding "
                "WHERE model = %s AND fact_id = ANY(%s)",
                [model, chunk],
            )
            for fact_id, dim, raw in cursor.fetchall():
                found[fact_id] = _decode(raw, storage, dim)
    return found


def vectors_search(
    *,
    scopes: list[Scope],
    query: np.ndarray,
    embedder: Embedder,
    limit: int,
    include_hidden: bool = False,
    versions: dict[str, tuple] | None = None,
    snapshots: list[Snapshot] | None = None,
) -> Nearest:
    """The `limit` fact rows of these scopes nearest to the query vector, most similar first
    (ties: newer first, then by identity, scope, shard and file), and how many of the scopes'
    facts have no vector yet (the backfill makes them; nothing is embedded here). `versions`
    (from `memstore.recall.versions`) saves the statement that reads them; `snapshots` of the
    same scopes (from `snapshot`) the work of finding them."""
    keys = [str(scope) for scope in scopes]
    if versions is None:
        versions = versions_read(keys)
    searched = sum(version[-1] for version in versions.values())

    def fetch(fact_ids: list[str]) -> dict[str, np.ndarray]:
        return vectors_fetch(embedder.name, fact_ids)

    if searched >= ANN_MIN_FACTS and (share := _ann_share(embedder, searched)):
        # Scopes held in this process are ranked here (on the vectors' sign bits, then exact
        # cosines: `matrices`) once their matrices are up to date; until then (the first
        # search, the first after a write) they are built behind the search, which asks the
        # HNSW index meanwhile, as do searches too large to hold.
        local = snapshots is not None and searched <= LOCAL_MAX_FACTS
        if local and not matrices_held(snapshots, embedder):
            matrices_build_behind(snapshots, embedder, fetch)
            local = False
        if not local:
            # Ask for enough neighbours that about `limit` survive the filter to these scopes.
            pool = max(limit, min(ANN_POOL_MAX, int(1.5 * limit / share)))
            hits = _ann_search(scopes, query, embedder, limit, include_hidden, pool)
            return Nearest(hits=hits, waiting=vectors_waiting(embedder.name, keys, versions))
    if snapshots is None:
        snapshots = snapshots_current(versions, keys)

    return matrices_search(
        snapshots, query, embedder, limit=limit, include_hidden=include_hidden, fetch=fetch
    )


def vectors_missing(model: str, fact_ids: list[str]) -> set[str]:
    """Which of these identities have no vector under `model` yet (one short query)."""
    if not fact_ids:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT fact_id FROM memstore_embedding WHERE model = %s AND fact_id = ANY(%s)",
            [model, fact_ids],
        )
        have = {row[0] for row in cursor.fetchall()}
    return set(fact_ids) - have


_WAITING_SQL = (
    "SELECT count(DISTINCT f.fact_id) FROM memstore_fact f WHERE f.scope_key = ANY(%s)"
    " AND NOT EXISTS (SELECT 1 FROM memstore_embedding e"
    " WHERE e.model = %s AND e.fact_id = f.fact_id)"
)
_waiting: dict[tuple, tuple[float, int]] = {}  # (db, model, versions) -> (when counted, count)


def vectors_waiting(model: str, keys: list[str], versions: dict[str, tuple] | None = None) -> int:
    """How many distinct facts of these scopes have no vector under `model` yet (counted again
    at most every RECHECK_S seconds while the scopes' versions are unchanged)."""
    versions = versions if versions is not None else versions_read(keys)
    key = (connection.settings_dict["NAME"], model, tuple(sorted(versions.items())))
    now = time.monotonic()
    when, count = _waiting.get(key, (-RECHECK_S, 0))
    if now - when < RECHECK_S:
        return count
    with connection.cursor() as cursor:
        cursor.execute(_WAITING_SQL, [keys, model])
        count = int(cursor.fetchone()[0])
    if len(_waiting) > 1000:
        _waiting.clear()
    _waiting[key] = (now, count)
    return count


_ann_ready: dict[tuple[str, str], bool] = {}


def _ann_share(embedder: Embedder, searched: int) -> float:
    """The searched facts' share of the model's vectors when the HNSW index should serve
    this search, else 0."""
    if embedder.name not in ANN_INDEXES or _storage() != "vector":
        return 0.0
    index, _ = ANN_INDEXES[embedder.name]
    key = (connection.settings_dict["NAME"], index)
    with connection.cursor() as cursor:
        if key not in _ann_ready:
            cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [index])
            _ann_ready[key] = cursor.fetchone() is not None
        if not _ann_ready[key]:
            return 0.0
        stored = _vectors_stored(cursor, key)
    share = min(1.0, searched / stored)
    return share if share >= ANN_MIN_SHARE else 0.0


_stored: dict[tuple[str, str], tuple[float, float]] = {}  # key -> (when read, row estimate)
STORED_TTL_S = 30.0


def _vectors_stored(cursor, key: tuple[str, str]) -> float:
    # The planner's row estimate: free, and close enough to compare shares; re-read every 30 s.
    now = time.monotonic()
    when, stored = _stored.get(key, (-STORED_TTL_S, 0.0))
    if now - when >= STORED_TTL_S:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = 'memstore_embedding'")
        stored = max(cursor.fetchone()[0], 1)
        _stored[key] = (now, stored)
    return stored


def _ann_search(
    scopes: list[Scope],
    query: np.ndarray,
    embedder: Embedder,
    limit: int,
    include_hidden: bool,
    pool: int,
) -> list[VectorHit]:
    _, dim = ANN_INDEXES[embedder.name]
    literal = _encode(query, "vector")
    hidden = "" if include_hidden else "AND f.visibility <> 'hidden'"
    # The inner query matches the partial HNSW index (same expression, same model literal).
    sql = f"""
        SELECT f.id, f.fact_id, f.day, 1 - (e.v <=> %s::vector({dim})) AS cosine
        FROM (
            SELECT fact_id, vector::vector({dim}) AS v FROM memstore_embedding
            WHERE model = %s ORDER BY vector::vector({dim}) <=> %s::vector({dim}) LIMIT %s
        ) e
        JOIN memstore_fact f ON f.fact_id = e.fact_id
        WHERE f.scope_key = ANY(%s) {hidden}
        ORDER BY cosine DESC, f.day DESC, f.fact_id COLLATE "C", f.scope_key COLLATE "C",
                 f.shard_bot COLLATE "C", f.id
        LIMIT %s
    """
    with connection.cursor() as cursor:
        _ef_search_set(cursor, int(pool))
        cursor.execute(
            sql, [literal, embedder.name, literal, pool, [str(s) for s in scopes], limit]
        )
        rows = cursor.fetchall()
    return [VectorHit(pk=r[0], fact_id=r[1], day=r[2], cosine=float(r[3])) for r in rows]


_ef_search: "WeakKeyDictionary[object, int]" = WeakKeyDictionary()


def _ef_search_set(cursor, pool: int) -> None:
    """Let the HNSW scan consider `pool` candidates. Outside a transaction the session keeps
    the setting, so it is sent only when it changes (a statement saved on most searches);
    inside one it is set for that transaction, since a rollback would undo it unseen."""
    if connection.in_atomic_block:
        cursor.execute(f"SET LOCAL hnsw.ef_search = {pool}")
        return
    raw = connection.connection
    if _ef_search.get(raw) != pool:
        cursor.execute(f"SET hnsw.ef_search = {pool}")
        _ef_search[raw] = pool


def vectors_cache_clear() -> None:
    """Forget every snapshot, matrix and query vector in this process (tests, after a model
    change)."""
    from memstore.recall.backfill import backfill_forget
    from memstore.recall.query_vectors import query_vectors_clear

    backfill_forget()
    matrices_clear()
    snapshots_clear()
    query_vectors_clear()
    _storage_by_db.clear()
    _ann_ready.clear()
    _stored.clear()
    _waiting.clear()
