"""The backfill on the durable queue: the worker makes the vectors sync left for later.

    python manage.py procrastinate worker       # the same workers that learn

`backfill_wanted` is how a request asks for meaning: it queues one `embed_backfill` job (a
queueing lock keeps at most one waiting, a lock runs one at a time across workers), at most once
every `KICK_EVERY_S` seconds per process, and never waits for it. A job embeds for up to
`SLICE_S` seconds, then queues its successor if facts are still waiting, so learning jobs queued
meanwhile get their turn. A job first gives the facts waiting for a vector their static tier's
(`tiers`: thousands a second, so a drop-in is searchable by a first tier of meaning within
seconds), distilling the tier's table the first time (about 2 minutes, once), then makes the
full model's vectors; once none waits, the static vectors they replaced are deleted. A failure (the model down) is retried with exponential backoff
(EMBEDDINGS_RETRY_WAIT seconds, doubled per attempt) and nothing is lost (see `backfill`); a
periodic task every minute queues a run too, so meaning catches up after a worker was stopped
or a job gave up.

Does not: embed inside a request, or choose the facts (`backfill` does).
"""

import logging
import time

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection, transaction
from procrastinate import BaseRetryStrategy, RetryDecision
from procrastinate.contrib.django import app
from procrastinate.jobs import Job

from memstore.recall.backfill import backfill_run, backfill_waiting
from memstore.recall.static import StaticEmbedder
from memstore.recall.tiers import static_current
from memstore.recall.vectors import embedder_current

logger = logging.getLogger(__name__)
QUEUE = "embeddings"
TASK = "memstore.recall.embed"
LOCK = "recall-embed"
SLICE_S = 20.0  # one job's share of the worker before it queues its successor
KICK_EVERY_S = 2.0
STATIC_CHUNK = 2_000  # static vectors per step: microseconds each, so a step stays short
RETRY_ATTEMPTS = 8

_kicked: dict[str, float] = {}  # database -> when this process last queued a run


class BackfillRetry(BaseRetryStrategy):
    """EMBEDDINGS_RETRY_WAIT seconds (default 5), doubled per attempt, RETRY_ATTEMPTS times."""

    def get_retry_decision(self, *, exception: BaseException, job: Job) -> RetryDecision | None:
        if job.attempts + 1 >= RETRY_ATTEMPTS:
            return None
        wait = float(settings.EMBEDDINGS_RETRY_WAIT)
        return RetryDecision(retry_in={"seconds": wait * 2**job.attempts})


@app.task(name=TASK, queue=QUEUE, lock=LOCK, retry=BackfillRetry())
def embed_backfill() -> str:
    """Embed waiting facts for up to SLICE_S seconds; queue the next run if some are left."""
    close_old_connections()
    try:
        full = embedder_current()
        static = _static_tier(full)
        if static is not None:
            first = backfill_run(
                embedder=static, seconds=SLICE_S, chunk=STATIC_CHUNK, unless=full.name
            )
            if first.more:
                backfill_wanted(force=True)
                return f"{first.embedded} static, more waiting"
        # New facts (a drop-in indexed meanwhile) get their static vectors before more full ones.
        news = (lambda: backfill_waiting(static, unless=full.name)) if static else None
        report = backfill_run(embedder=full, seconds=SLICE_S, stop=news)
        if report.more:
            backfill_wanted(force=True)
        elif static is not None and report.embedded:
            static_replaced_delete(static, full.name)
        return f"{report.embedded} embedded" + (", more waiting" if report.more else "")
    finally:
        close_old_connections()


def _static_tier(full) -> StaticEmbedder | None:
    try:
        return static_current(full, build=True)
    except Exception:
        # The tier is an optimisation: without it the full model's backfill goes on as before.
        logger.exception("could not distil the static tier; waiting facts are found by words")
        return None


def static_replaced_delete(static: StaticEmbedder, full: str) -> int:
    """Delete the static vectors of facts that have their full one (recall no longer reads
    them); how many."""
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM memstore_embedding s WHERE s.model = %s AND EXISTS (SELECT 1 FROM"
            " memstore_embedding e WHERE e.model = %s AND e.fact_id = s.fact_id)",
            [static.name, full],
        )
        return cursor.rowcount


@app.periodic(cron="* * * * *", periodic_id="memstore.recall.embed.tick")
@app.task(name="memstore.recall.embed.tick", queue=QUEUE, queueing_lock="recall-embed-tick")
def embed_tick(timestamp: int) -> bool:
    """Every minute: queue a backfill run (it finds nothing to do at once when none waits)."""
    close_old_connections()
    try:
        return backfill_wanted(force=True)
    finally:
        close_old_connections()


def backfill_wanted(*, force: bool = False) -> bool:
    """Queue a backfill run unless one is already waiting (or this process asked less than
    KICK_EVERY_S ago); True when a job was queued. Never raises: meaning can wait."""
    from procrastinate.exceptions import AlreadyEnqueued

    db = connection.settings_dict["NAME"]
    now = time.monotonic()
    if not force and now - _kicked.get(db, -KICK_EVERY_S) < KICK_EVERY_S:
        return False
    _kicked[db] = now
    try:
        # A savepoint: a refused insert (one is already queued) must not abort the caller's read.
        with transaction.atomic():
            embed_backfill.configure(queueing_lock=LOCK).defer()
    except AlreadyEnqueued:
        return False
    except DatabaseError as error:
        logger.warning("could not queue the embedding backfill: %s", error)
        return False
    return True
