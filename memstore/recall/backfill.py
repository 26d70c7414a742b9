"""Meaning in the background: vectors for the indexed facts that have none yet.

Owns: `backfill_run`, which embeds the index's facts that have no vector under the current model,
a chunk at a time in row order, until none is left or its time is up; and `backfill_state`, how
many facts the index holds and how many of them wait. Sync indexes words at once; this is what
makes the meaning afterwards, in the worker (`memstore.recall.jobs`) or `manage.py
recall_embed`, never inside a prompt, recall or console request.

While a step's vectors are stored, the next step's are being made on another thread (the
model releases the GIL), so the model and Postgres's index inserts run at once.

Each process remembers the highest fact row it has seen embedded (rows only grow: a new or
changed line is a new row), so a run over an index that is up to date costs one short query.
A chunk the model fails on raises: nothing after it is marked done, so the next run (the job's
retry) starts from it again and nothing is lost. Facts stay findable by words meanwhile.

Does not: search, or decide when to run (the job and its callers do).
"""

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date

from django.conf import settings
from django.db import connection

from memstore.facts.markdown import FactLine
from memstore.recall.embeddings import Embedder
from memstore.recall.vectors import embedder_current, vectors_embedded, vectors_store
from memstore.rooms.outgoing import passages_cleared

CHUNK = 64  # facts per step: a step is short, so a stop (or a failure) loses little work

# The facts after a row id without a vector under a model (nor under `unless`): a function run
# with sequential scans off (migration 0030), so stale statistics after a big drop-in can't turn
# it into a comparison of every fact with every vector.
_PENDING_SQL = "SELECT id, fact_id, text FROM memstore_vectors_pending(%s, %s, %s, %s)"
_UNLESS_SQL = (
    " AND NOT EXISTS (SELECT 1 FROM memstore_embedding u WHERE u.model = %s"
    " AND u.fact_id = f.fact_id)"
)
_STATE_SQL = (
    "SELECT count(DISTINCT f.fact_id), count(DISTINCT f.fact_id) FILTER (WHERE NOT EXISTS"
    " (SELECT 1 FROM memstore_embedding e WHERE e.model = %s AND e.fact_id = f.fact_id))"
    " FROM memstore_fact f"
)

_STATE_UNLESS_SQL = (
    "SELECT count(DISTINCT f.fact_id), count(DISTINCT f.fact_id) FILTER (WHERE NOT EXISTS"
    " (SELECT 1 FROM memstore_embedding e WHERE e.model = %s AND e.fact_id = f.fact_id)"
    f"{_UNLESS_SQL}) FROM memstore_fact f"
)

_after: dict[tuple[str, str, str | None], int] = {}  # (database, model, unless) -> every row up
# to it has a vector


@dataclass(frozen=True, slots=True)
class BackfillReport:
    """What one run did: vectors computed, and whether facts are still waiting."""

    embedded: int
    more: bool


@dataclass(frozen=True, slots=True)
class BackfillState:
    """The index's distinct facts, and how many of them have no vector yet."""

    facts: int
    waiting: int


def backfill_run(
    *,
    embedder: Embedder | None = None,
    seconds: float | None = None,
    chunk: int = CHUNK,
    progress: Callable[[int], None] | None = None,
    threads: int | None = None,
    unless: str | None = None,
    stop: Callable[[], bool] | None = None,
) -> BackfillReport:
    """Embed facts without a vector until none is left or `seconds` have passed (None: no
    limit), on `threads` threads (default EMBEDDINGS_BACKFILL_THREADS); `progress(n)` after
    each step with the vectors computed so far; `unless`: a model whose vector spares a fact
    this one (the static tier is made only for facts waiting for the full model's); `stop()`,
    asked after each step, ends the run early (more to do: the job yields to the static tier's
    run when new facts came in). A model error propagates once the steps before it are stored.

    The next step's texts are embedded on a thread of their own while this one stores the
    step before (Postgres inserts into its HNSW index on its own core meanwhile), so the model
    never waits for the database."""
    embedder = embedder or embedder_current()
    if threads is None:
        threads = int(settings.EMBEDDINGS_BACKFILL_THREADS)
    if embedder is None:
        return BackfillReport(embedded=0, more=False)
    key = (connection.settings_dict["NAME"], embedder.name, unless)
    started = time.monotonic()
    with connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(max(id), 0) FROM memstore_fact")
        top = cursor.fetchone()[0]
    after, done = min(_after.get(key, 0), top), 0
    flying: _Step | None = None
    with ThreadPoolExecutor(1, thread_name_prefix="backfill") as ahead:
        while True:
            step = _step_start(ahead, embedder, after, chunk, threads, flying, unless)
            if step is not None:
                after = step.last
            if flying is not None:
                # A model error raises here: nothing from this step on is marked done.
                done += _step_store(embedder, flying, progress, done)
                _after[key] = flying.last
            flying = step
            if flying is None:
                _after[key] = max(after, top)
                return BackfillReport(embedded=done, more=False)
            late = seconds is not None and time.monotonic() - started >= seconds
            if late or (stop is not None and stop()):
                done += _step_store(embedder, flying, progress, done)
                _after[key] = flying.last
                more = bool(_pending(after, embedder.name, 1, unless))
                return BackfillReport(embedded=done, more=more)


@dataclass(frozen=True, slots=True)
class _Step:
    """A chunk of facts whose vectors are being made: the last row id it covers, the fact
    identities in order and, when done, their vectors."""

    last: int
    fact_ids: list[str]
    vectors: Future


def _step_store(
    embedder: Embedder, step: _Step, progress: Callable[[int], None] | None, done: int
) -> int:
    """Store a step's vectors once they are made; how many."""
    vectors = step.vectors.result()
    if step.fact_ids:
        vectors_store(embedder, step.fact_ids, vectors)
    if progress is not None:
        progress(done + len(step.fact_ids))
    return len(step.fact_ids)


def _step_start(
    ahead: ThreadPoolExecutor,
    embedder: Embedder,
    after: int,
    chunk: int,
    threads: int,
    flying: "_Step | None",
    unless: str | None = None,
) -> "_Step | None":
    """The next chunk after row `after`, its embedding started on `ahead`; None when none is
    left. Identities of the step still in flight are left out (not stored yet, so the query
    still finds them where another row holds the same fact)."""
    rows = _pending(after, embedder.name, chunk, unless)
    if not rows:
        return None
    busy = set(flying.fact_ids) if flying is not None else set()
    texts = {fact_id: text for _, fact_id, text in rows if fact_id not in busy}
    fact_ids = list(texts)
    # The tier tag ("[note] ...") says nothing about meaning; embed the body.
    bodies = [FactLine(day=date.min, text=texts[fact_id]).body for fact_id in fact_ids]
    fact_ids, bodies = passages_cleared(embedder, fact_ids, bodies)  # the gate, when remote
    return _Step(rows[-1][0], fact_ids, ahead.submit(vectors_embedded, embedder, bodies, threads))


def _pending(
    after: int, model: str, limit: int, unless: str | None = None
) -> list[tuple[int, str, str]]:
    with connection.cursor() as cursor:
        cursor.execute(_PENDING_SQL, [after, model, unless, limit])
        return cursor.fetchall()


def backfill_waiting(embedder: Embedder, *, unless: str | None = None) -> bool:
    """Whether some indexed fact has no vector under `embedder` (nor `unless`): one short query
    from the highest row this process saw done."""
    key = (connection.settings_dict["NAME"], embedder.name, unless)
    return bool(_pending(_after.get(key, 0), embedder.name, 1, unless))


def backfill_state(*, embedder: Embedder | None = None, unless: str | None = None) -> BackfillState:
    """How many distinct facts the index holds and how many wait for a vector (with `unless`:
    for one under neither model, e.g. searchable by no tier of meaning yet); one scan of the
    index: for commands and benchmarks, not for requests."""
    embedder = embedder or embedder_current()
    with connection.cursor() as cursor:
        if embedder is None:
            cursor.execute("SELECT count(DISTINCT fact_id) FROM memstore_fact")
            return BackfillState(facts=cursor.fetchone()[0], waiting=0)
        if unless is not None:
            cursor.execute(_STATE_UNLESS_SQL, [embedder.name, unless])
        else:
            cursor.execute(_STATE_SQL, [embedder.name])
        facts, waiting = cursor.fetchone()
    return BackfillState(facts=facts, waiting=waiting)


def backfill_forget() -> None:
    """Forget what this process has seen embedded (tests; after vectors were deleted)."""
    _after.clear()
