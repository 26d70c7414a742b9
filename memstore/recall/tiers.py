"""Which tier of meaning serves a search: the full model's vectors, the static tier's for facts
still waiting for theirs, or words alone.

Owns: `static_current` (the static tier of the configured model, when it has one and its table
is cached; the worker may distil it), `static_side` (the waiting facts nearest the query by
their static vectors, with its floor) and `Tiers` with `tier_label`, what an answer says served, and the notes an answer carries
about meaning (`waiting_note`, `no_model_note`).

Only the bundled model has a static tier (its table is distilled from that model's own bytes);
an HTTP embedder has none and its waiting facts are found by words only. A fact leaves the
static list as soon as this process sees its full vector.

Does not: make or store vectors (see `backfill`), fuse (see `fusion`), or search by words.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from django.conf import settings

from memstore.recall import fusion
from memstore.recall.embeddings import Embedder, OnnxBgeEmbedder, bge_small_dir
from memstore.recall.matrices import matrices_build_behind, matrices_held, matrices_waiting
from memstore.recall.snapshot import Snapshot
from memstore.recall.static import StaticEmbedder, static_build, static_file, static_load
from memstore.recall.vectors import ANN_MIN_FACTS, vectors_fetch

Meaning = Literal["full", "static", "mixed", "words"]
# The static tier's cosines (centred, reduced, weighted rows) run lower than the full model's:
# a hit must reach STATIC_FLOOR and be within STATIC_MARGIN of the best waiting fact.
STATIC_FLOOR = 0.3
STATIC_MARGIN = 0.25
MODEL_FAILED = "Searched by words only: the embedding model failed for this query (see the log)."


@dataclass(frozen=True, slots=True)
class Tiers:
    """How many searched facts each tier could judge: `full` with their full vector, `static`
    by the static tier while they wait, `words` by their words only."""

    full: int = 0
    static: int = 0
    words: int = 0


def tier_label(tiers: Tiers, *, meaning: bool) -> Meaning:
    """What served a search: "full" (every fact had its full vector), "static" (none had, the
    static tier ranked the waiting ones), "mixed" (some of each, or facts on words only beside
    vectors), "words" (meaning served no fact)."""
    if not meaning or (not tiers.full and not tiers.static):
        return "words"
    if not tiers.static and not tiers.words:
        return "full"
    if not tiers.full and not tiers.words:
        return "static"
    return "mixed"


def static_current(
    embedder: Embedder | None, *, build: bool = False, threads: int | None = None
) -> StaticEmbedder | None:
    """The static tier of `embedder` (the configured model) when it has one and the table is
    cached under RECALL_STATIC_DIR; with `build` (the worker) it is distilled first if it is not
    there (about 2 minutes of one core, once; on `threads`, default EMBEDDINGS_BACKFILL_THREADS).
    None: RECALL_STATIC off, another model, or no table yet."""
    if not settings.RECALL_STATIC or not isinstance(embedder, OnnxBgeEmbedder):
        return None
    model_dir = bge_small_dir()
    if model_dir is None:
        return None
    folder = Path(settings.RECALL_STATIC_DIR)
    path = static_file(folder)
    if build and not path.is_file():
        threads = threads or max(1, int(settings.EMBEDDINGS_BACKFILL_THREADS))
        static_build(folder, model_dir, threads=threads)
    return static_load(path, model_dir)


def static_side(
    snapshots: list[Snapshot],
    query: str,
    static: StaticEmbedder,
    full: Embedder,
    *,
    limit: int,
    include_hidden: bool,
) -> tuple[list[fusion.Ranked], int, float | None]:
    """The waiting facts nearest the query by the static tier, above its floor, best first;
    how many waiting facts the tier could rank (have a static vector); and the floor."""
    vector = static.embed_query(query)
    if not np.any(vector):
        return [], 0, None

    def fetch(fact_ids: list[str]) -> dict[str, np.ndarray]:
        return vectors_fetch(static.name, fact_ids)

    # A large scope's static matrix is built behind the search, as the full model's is.
    if sum(s.rows for s in snapshots) >= ANN_MIN_FACTS and not matrices_held(snapshots, static):
        matrices_build_behind(snapshots, static, fetch)
        return [], 0, None
    hits, served = matrices_waiting(
        snapshots, vector, static, full, limit=limit, include_hidden=include_hidden, fetch=fetch
    )
    ranked = [fusion.Ranked(pk=h.pk, fact_id=h.fact_id, day=h.day, score=h.cosine) for h in hits]
    if not ranked:
        return [], served, None
    cut = max(STATIC_FLOOR, ranked[0].score - STATIC_MARGIN)
    return [hit for hit in ranked if hit.score >= cut], served, cut


def waiting_note(waiting: int, searched: int, static: int = 0) -> str:
    """What an answer says while facts wait for their vector: how many, and how they were
    searched meanwhile."""
    ready = max(0, searched - waiting)
    head = f"Preparing search by meaning: {ready:,} of {searched:,} facts; "
    if not static:
        return head + f"the other {waiting:,} were searched by their words only."
    words = waiting - static
    tail = f", {words:,} by their words only." if words else "."
    return (
        head + f"{static:,} were searched by their words and a quicker first tier of meaning{tail}"
    )


def no_model_note() -> str:
    """What an answer says when no model searched by meaning."""
    if (settings.EMBEDDINGS or "").strip().lower() == "none":
        return "Searched by words only: semantic search is turned off (EMBEDDINGS=none)."
    return "Searched by words only: no embedding model is installed, so paraphrases are missed."
