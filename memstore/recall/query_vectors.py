"""Query vectors for recall: remembered for repeated queries, optionally computed beside the SQL.

Owns: `query_vector_start`, which returns a future of a query's vector. A query embedded
recently (same model instance, same text) is answered from a small per-process LRU cache. A
vector is a function of the query text and the model alone (see memstore.recall.embeddings), so a
remembered one is exactly what a fresh run would give. With `BESIDE_SQL` (on) the model runs on
the recall pool (`threads`) while the caller syncs, reads the versions and ranks by words
(onnxruntime and an HTTP call release the GIL). Measured on the 2-core box (docs/benchmarks.md,
"Recall in fewer round trips"): on a quiet machine that takes 2 ms off a new question's 10 (p50); when every core is
busy it gains nothing, as there is no idle core to overlap onto.

Does not: decide what to do when the model fails (the future raises; the caller falls back to
words), store anything, or embed facts.
"""

import threading
from collections import OrderedDict
from concurrent.futures import Future

import numpy as np

from memstore.recall.embeddings import Embedder
from memstore.recall.threads import recall_pool

# Embed on a pool thread while the caller syncs and ranks words (True), or in its thread (False).
BESIDE_SQL = True
CACHE_SIZE = 512  # queries per process (1.5 KB each with a 384-dim model)

_cache: OrderedDict[tuple[int, str, str], np.ndarray] = OrderedDict()
_lock = threading.Lock()


def query_vector_start(embedder: Embedder, query: str) -> "Future[np.ndarray]":
    """A future of the query's vector: already done when the query was embedded recently."""
    # The instance is part of the key: a test's stand-in model never answers for another.
    key = (id(embedder), embedder.name, query)
    with _lock:
        vector = _cache.get(key)
        if vector is not None:
            _cache.move_to_end(key)
    if vector is not None:
        done: Future[np.ndarray] = Future()
        done.set_result(vector)
        return done
    if not BESIDE_SQL:
        done = Future()
        try:
            done.set_result(_embed(embedder, key))
        except Exception as error:  # the caller falls back to words, as with a thread
            done.set_exception(error)
        return done
    return recall_pool().submit(_embed, embedder, key)


def _embed(embedder: Embedder, key: tuple[int, str, str]) -> np.ndarray:
    vector = np.array(embedder.embed_query(key[2]), dtype=np.float32)
    vector.setflags(write=False)  # shared by every later search for the same text
    with _lock:
        _cache[key] = vector
        _cache.move_to_end(key)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return vector


def query_vectors_clear() -> None:
    """Forget every remembered query vector (tests, after a model change)."""
    with _lock:
        _cache.clear()
