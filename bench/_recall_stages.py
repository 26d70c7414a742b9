"""Where a recall search's time goes: `stage_times` wraps the functions `recall_search` calls
and reports the median milliseconds per query spent in each (for `python -m bench recall`).

Stages are looked up by name and skipped when the code at hand has no such function, so the
same table can be made before and after a change that moved them. Only time on the calling
thread counts, except the model run, which `recall_search` may start on another thread; the
time the caller then waits for it is its own stage.
"""

import importlib
import threading
import time

from bench.harness import median

# Functions `recall_search` calls, wrapped to time each stage (whichever the code has: the
# stages moved between versions). Names: (module, attribute).
STAGES = {
    "sync (stat the files, 1 statement)": ("memstore.recall.sides", "index_sync"),
    "sync's stats (their rows ride in the terms statement)": (
        "memstore.recall.sides",
        "sync_check_start",
    ),
    "query terms (1 statement)": ("memstore.recall.lexical", "lexical_terms"),
    "query terms + scope versions (1 statement)": (
        "memstore.recall.sides",
        "_terms_and_versions",
    ),
    "scope snapshots (in process)": ("memstore.recall.sides", "snapshots_current"),
    "words (in process)": ("memstore.recall.sides", "word_rank"),
    "query embedding (model run)": (None, "embed_query"),
    "waiting for the query vector": ("concurrent.futures", "Future.result"),
    "meaning (versions + matrix product)": ("memstore.recall.sides", "vectors_search"),
    "words (BM25 statement)": ("memstore.recall.sides", "lexical_search"),
    "loading the results (1 statement)": ("memstore.recall.search", "_rows"),
    "fusion": ("memstore.recall.fusion", "fuse"),
}


def stage_times(questions_: list[str], call, embedder) -> dict[str, float]:
    """Median ms per query spent in each stage of `recall_search`, and the whole call."""
    per_query: dict[str, list[float]] = {}
    spent: dict[str, float] = {}
    main = threading.get_ident()
    undo = []

    def timed(name, fn):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                if name == "query embedding (model run)" or threading.get_ident() == main:
                    spent[name] = spent.get(name, 0.0) + (time.perf_counter() - t0) * 1000

        return wrapper

    for name, (module, attr) in STAGES.items():
        if module is None:
            owner, leaf = embedder, attr
        else:
            owner = importlib.import_module(module)
            *path, leaf = attr.split(".")
            for part in path:
                owner = getattr(owner, part)
        if owner is None or not hasattr(owner, leaf):
            continue
        original = getattr(owner, leaf)
        setattr(owner, leaf, timed(name, original))
        undo.append((owner, leaf, original))
    try:
        for question in questions_:
            spent.clear()
            t0 = time.perf_counter()
            call(question)
            total = (time.perf_counter() - t0) * 1000
            for name, ms in spent.items():
                per_query.setdefault(name, []).append(ms)
            per_query.setdefault("whole call", []).append(total)
    finally:
        for owner, leaf, original in reversed(undo):
            setattr(owner, leaf, original)
    return {name: median(v) for name, v in per_query.items()}
