"""The semantic side of recall: fact vectors, cached by identity, and nearest-neighbour search.

Owns: which embedder the settings name (`embedder_current`), computing and storing vectors for
facts that have none (`vectors_ensure`), and cosine search over the facts of some scopes
(`vectors_search`).

Vectors live in `memstore_embedding`, keyed by (model, fact identity): a rebuild of the index,
a fact moved between files or the same text saved in another scope never recomputes one. The
model name says how a vector was made (the bundled model embeds one text per run), so vectors
made another way are never mixed in.

Results do not depend on the order facts were indexed in or rows come back from Postgres: each
scope's matrix is laid out by a content key (identity, scope, shard, file), and ties break by
date, then that key, never by row id or position. (The approximate HNSW path is the exception:
its graph depends on the order vectors were inserted, so after a rebuild of the embedding table
a search over more than 20,000 facts may find a slightly different pool.)

Search is exact up to 20,000 searched facts: each scope's vectors are held in this process as
one matrix, refreshed when a cheap query over the scope's file rows says something changed
(only new identities are then fetched or computed); a matrix product over 10,000 facts takes
well under a millisecond. Beyond that, when pgvector has an HNSW index for the model and the
searched scopes hold at least a quarter of the workspace's vectors, Postgres finds the nearest
vectors approximately and they are filtered to the searched scopes. Without pgvector the scan
stays exact (about 20 ms per 100,000 facts).

Does not: match words, fuse or rank (see `lexical`, `fusion`), decide who may read what (callers
pass scopes), or write index rows.
"""

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

import numpy as np
from django.conf import settings
from django.db import connection, transaction

from memstore.embeddings import Embedder, embedder_load
from memstore.markdown import FactLine
from memstore.models import Embedding, Fact
from memstore.paths import Scope
from memstore.recall.versions import versions_read

logger = logging.getLogger(__name__)

EMBED_BATCH = 256
CACHE_MAX_FACTS = 300_000  # vectors held per process before the least recently used scope goes
ANN_MIN_FACTS = 20_000  # below this an exact scan in this process is as fast and exact
ANN_MIN_SHARE = 0.25  # the HNSW pool is filtered to the searched scopes: they must be a big part
ANN_POOL_MAX = 1000  # pgvector's largest hnsw.ef_search
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


def vectors_ensure(texts: Mapping[str, str], *, embedder: Embedder | None = None) -> int:
    """Compute and store vectors for the fact identities in `texts` (identity -> fact text)
    that have none yet under the current model; returns how many were computed."""
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
        _store(embedder, chunk, embedder.embed_passages(bodies))
    return len(missing)


def _embedding_rows(model: str, fact_ids: list[str]):
    return Embedding.objects.filter(model=model, fact_id__in=fact_ids)


def _store(embedder: Embedder, fact_ids: list[str], vectors: np.ndarray) -> None:
    storage = _storage()
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


@dataclass(frozen=True, slots=True)
class VectorHit:
    """A fact row found by meaning: its index row id, identity, date and cosine similarity."""

    pk: int
    fact_id: str
    day: date
    cosine: float


@dataclass(slots=True)
class _ScopeMatrix:
    version: tuple
    pks: np.ndarray  # int64 Fact row ids
    fact_ids: list[str]
    keys: list[tuple[str, str, str, str]]  # (identity, scope, shard, file): row order, ties
    days: np.ndarray  # int32 proleptic ordinals
    hidden: np.ndarray  # bool
    matrix: np.ndarray  # (n, dim) float32, rows L2-normalised

    @property
    def rows(self) -> int:
        return len(self.fact_ids)


_cache: OrderedDict[tuple[str, str, str], _ScopeMatrix] = OrderedDict()
_cache_lock = threading.Lock()


def _refresh(
    embedder: Embedder, key: str, version: tuple, old: _ScopeMatrix | None
) -> _ScopeMatrix:
    # Laid out by content, compared in Python (no collation): the same facts give the same
    # matrix whatever order they were indexed in.
    rows = sorted(
        Fact.objects.filter(scope_key=key).values_list(
            "id", "fact_id", "day", "visibility", "scope_key", "shard_bot", "file__path"
        ),
        key=lambda r: (r[1], r[4], r[5], r[6], r[0]),
    )
    known: dict[str, np.ndarray] = {}
    if old is not None:
        index = {fact_id: i for i, fact_id in enumerate(old.fact_ids)}
        known = {r[1]: old.matrix[index[r[1]]] for r in rows if r[1] in index}
    wanted = sorted({r[1] for r in rows} - known.keys())
    if wanted:
        known.update(vectors_fetch(embedder.name, wanted))
        missing = [fact_id for fact_id in wanted if fact_id not in known]
        if missing:
            texts = dict(
                Fact.objects.filter(scope_key=key, fact_id__in=missing).values_list(
                    "fact_id", "text"
                )
            )
            try:
                vectors_ensure(texts, embedder=embedder)
            except Exception:
                # A model that fails (a remote endpoint down) must not take recall down: these
                # facts stay findable by words and are embedded on a later search.
                logger.exception("could not embed %d facts of %s", len(texts), key)
            known.update(vectors_fetch(embedder.name, missing))
    rows = [r for r in rows if r[1] in known]  # an identity the model failed on stays unsearchable
    matrix = np.empty((len(rows), embedder.dim), dtype=np.float32)
    for i, row in enumerate(rows):
        matrix[i] = known[row[1]]
    return _ScopeMatrix(
        version=version,
        pks=np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
        fact_ids=[r[1] for r in rows],
        keys=[(r[1], r[4], r[5], r[6]) for r in rows],
        days=np.fromiter((r[2].toordinal() for r in rows), dtype=np.int32, count=len(rows)),
        hidden=np.fromiter((r[3] == "hidden" for r in rows), dtype=bool, count=len(rows)),
        matrix=matrix,
    )


def _matrices(
    embedder: Embedder, scopes: list[Scope], versions: dict[str, tuple]
) -> list[_ScopeMatrix]:
    keys = [str(scope) for scope in scopes]
    db = connection.settings_dict["NAME"]
    result = []
    with _cache_lock:
        for key in keys:
            version = versions.get(key)
            if version is None:
                continue  # no files, no facts
            slot = (db, embedder.name, key)
            cached = _cache.get(slot)
            if cached is None or cached.version != version:
                cached = _refresh(embedder, key, version, cached)
                _cache[slot] = cached
            _cache.move_to_end(slot)
            result.append(cached)
        total = sum(entry.rows for entry in _cache.values())
        while total > CACHE_MAX_FACTS and len(_cache) > len(result):
            _, dropped = _cache.popitem(last=False)
            total -= dropped.rows
    return result


def vectors_search(
    *,
    scopes: list[Scope],
    query: np.ndarray,
    embedder: Embedder,
    limit: int,
    include_hidden: bool = False,
    versions: dict[str, tuple] | None = None,
) -> list[VectorHit]:
    """The `limit` fact rows of these scopes nearest to the query vector, most similar first
    (ties: newer first, then by identity, scope, shard and file). `versions` (from
    `memstore.recall.versions`) saves the statement that reads them."""
    if versions is None:
        versions = versions_read([str(scope) for scope in scopes])
    searched = sum(version[-1] for version in versions.values())
    if searched >= ANN_MIN_FACTS and (share := _ann_share(embedder, searched)):
        # Ask for enough neighbours that about `limit` survive the filter to these scopes.
        pool = max(limit, min(ANN_POOL_MAX, int(1.5 * limit / share)))
        return _ann_search(scopes, query, embedder, limit, include_hidden, pool)
    entries = [entry for entry in _matrices(embedder, scopes, versions) if entry.rows]
    if not entries:
        return []
    # einsum runs in this thread: BLAS would start worker threads that keep spinning after the
    # product and, on a small box, take the CPU Postgres and the query embedding need next.
    scores = np.concatenate([np.einsum("ij,j->i", entry.matrix, query) for entry in entries])
    if not include_hidden:
        scores[np.concatenate([entry.hidden for entry in entries])] = -np.inf
    return _top(entries, scores, limit)


def _top(entries: list[_ScopeMatrix], scores: np.ndarray, limit: int) -> list[VectorHit]:
    """The best `limit` rows; every row tied with the last one competes on the tie rule."""
    take = min(limit, len(scores))
    if take < len(scores):
        cut = -np.partition(-scores, take - 1)[take - 1]
        top = np.flatnonzero(scores >= cut)
    else:
        top = np.arange(len(scores))
    starts = np.cumsum([0] + [entry.rows for entry in entries])
    ranked = []
    for i in top:
        if not np.isfinite(scores[i]):
            continue
        which = int(np.searchsorted(starts, i, side="right")) - 1
        entry, row = entries[which], int(i - starts[which])
        hit = VectorHit(
            pk=int(entry.pks[row]),
            fact_id=entry.fact_ids[row],
            day=date.fromordinal(int(entry.days[row])),
            cosine=float(scores[i]),
        )
        ranked.append(((-hit.cosine, -int(entry.days[row]), entry.keys[row]), hit))
    ranked.sort(key=lambda pair: pair[0])
    return [hit for _, hit in ranked[:limit]]


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
        # The planner's row estimate: free, and close enough to compare shares.
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = 'memstore_embedding'")
        stored = max(cursor.fetchone()[0], 1)
    share = min(1.0, searched / stored)
    return share if share >= ANN_MIN_SHARE else 0.0


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
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL hnsw.ef_search = {int(pool)}")
        cursor.execute(
            sql, [literal, embedder.name, literal, pool, [str(s) for s in scopes], limit]
        )
        rows = cursor.fetchall()
    return [VectorHit(pk=r[0], fact_id=r[1], day=r[2], cosine=float(r[3])) for r in rows]


def vectors_cache_clear() -> None:
    """Forget every cached scope matrix and query vector in this process (tests, after a
    model change)."""
    from memstore.recall.query_vectors import query_vectors_clear

    with _cache_lock:
        _cache.clear()
    query_vectors_clear()
    _storage_by_db.clear()
    _ann_ready.clear()
