"""The durable queue: procrastinate jobs in the same Postgres, run by any number of workers.

    python manage.py learning_worker            # run a worker (any host, as many as you like)

`exchange_enqueue` is the one way in. The task learns from one stored exchange; a failure is
retried with exponential backoff (LEARNING_RETRY_ATTEMPTS, LEARNING_RETRY_WAIT seconds doubled
per retry), each failure is written on the exchange, and the last one marks it failed with an
event the console shows. A worker killed mid-job leaves its job "doing": every minute a
periodic task hands jobs of workers whose heartbeat stopped back to the queue (or, once they
used up their attempts, records them as failed). `manage.py learning_recover` does it at once.
"""

import logging

from asgiref.sync import async_to_sync
from django.db import close_old_connections, connection
from django.utils import timezone
from procrastinate import BaseRetryStrategy, JobContext, RetryDecision
from procrastinate.contrib.django import app
from procrastinate.jobs import Job, Status

from memstore.learning.pipeline import exchange_learn
from memstore.llm.client import ModelUnavailable
from memstore.llm.config import LearnerConfig, learner_config, model_client
from memstore.models import Exchange, LearningEvent

logger = logging.getLogger(__name__)
QUEUE = "learning"
TASK = "memstore.learning.exchange"
STALLED_AFTER = 30.0  # seconds without a heartbeat before a worker counts as dead


def commits_relaxed() -> None:
    """Let this connection's commits return before their WAL flush (for queue workers).

    Safe for the learner's work: its job's finish is committed afterwards, synchronously, by
    the queue, and WAL is flushed in order, so a finished job implies everything before it is
    on disk. If Postgres crashes first, the job is still running in the queue's eyes and runs
    again, and every step is idempotent. Files are fsynced as always; index rows can be
    rebuilt from them. Roughly halves a worker's cost per exchange on a slow-fsync disk.
    """
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit TO OFF")


def exchange_enqueue(*, exchange_id: int) -> int:
    """Queue a stored exchange for learning (inside the caller's transaction); the job id."""
    return learn_exchange.defer(exchange_id=exchange_id)


def will_retry(exc: BaseException, *, attempts: int, config: LearnerConfig) -> bool:
    """Whether a job that failed with `exc` after `attempts` earlier tries runs again."""
    if isinstance(exc, ModelUnavailable) and exc.permanent:
        return False
    return attempts + 1 < config.retry_attempts


class LearningRetry(BaseRetryStrategy):
    """Exponential backoff read from settings at each failure (so operators and tests can tune
    it without redefining the task): LEARNING_RETRY_WAIT seconds, doubled per attempt."""

    def get_retry_decision(self, *, exception: BaseException, job: Job) -> RetryDecision | None:
        config = learner_config()
        if not will_retry(exception, attempts=job.attempts, config=config):
            return None
        return RetryDecision(retry_in={"seconds": config.retry_wait * 2**job.attempts})


@app.task(name=TASK, queue=QUEUE, retry=LearningRetry(), pass_context=True)
def learn_exchange(context: JobContext, exchange_id: int) -> str:
    """Learn from one exchange; record each failure on it, and the final one as an event."""
    close_old_connections()
    commits_relaxed()
    config = learner_config()
    attempts = context.job.attempts
    try:
        return exchange_learn(exchange_id=exchange_id, client=model_client(config), config=config)
    except Exception as exc:
        final = not will_retry(exc, attempts=attempts, config=config)
        exchange_failed(exchange_id=exchange_id, error=_describe(exc), final=final)
        logger.warning("Learning from exchange %s failed (final=%s): %s", exchange_id, final, exc)
        raise
    finally:
        close_old_connections()


def exchange_failed(*, exchange_id: int, error: str, final: bool) -> None:
    """Write a failure on the exchange; a final one marks it failed and records an event."""
    from django.db.models import F

    rows = Exchange.objects.filter(pk=exchange_id, status=Exchange.QUEUED)
    if not final:
        rows.update(attempts=F("attempts") + 1, error=error)
        return
    exchange = rows.first()
    if exchange is None:
        return
    rows.update(
        attempts=F("attempts") + 1,
        error=error,
        status=Exchange.FAILED,
        reason="failed",
        finished_at=timezone.now(),
    )
    LearningEvent.objects.bulk_create(
        [
            LearningEvent(
                exchange=exchange,
                key="failed",
                bot=exchange.bot,
                room_id=exchange.room_id,
                room_kind=exchange.room_kind,
                person=exchange.person,
                kind="failed",
                mode=learner_config().mode,
                detail=f"Gave up after {exchange.attempts + 1} attempt(s): {error}",
            )
        ],
        ignore_conflicts=True,
    )


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if isinstance(exc, ModelUnavailable) else f"{type(exc).__name__}: {text}"[:2000]


async def jobs_recover_async(*, stalled_after: float = STALLED_AFTER) -> int:
    """Hand learning jobs of dead workers back to the queue; returns how many."""
    manager = app.job_manager
    jobs = await manager.get_stalled_jobs(task_name=TASK, seconds_since_heartbeat=stalled_after)
    config = learner_config()
    count = 0
    for job in jobs:
        if job.attempts + 1 < config.retry_attempts:
            await manager.retry_job(job)
        else:
            error = "The worker stopped (killed or crashed) while learning from this exchange."
            exchange_id = job.task_kwargs.get("exchange_id")
            if isinstance(exchange_id, int):
                from asgiref.sync import sync_to_async

                await sync_to_async(exchange_failed)(
                    exchange_id=exchange_id, error=error, final=True
                )
            await manager.finish_job(job, status=Status.FAILED, delete_job=False)
        count += 1
    return count


def jobs_recover(*, stalled_after: float = STALLED_AFTER) -> int:
    """Synchronous `jobs_recover_async`, for the management command and tests."""
    return async_to_sync(jobs_recover_async)(stalled_after=stalled_after)


@app.periodic(cron="* * * * *", periodic_id="memstore.learning.recover")
@app.task(name="memstore.learning.recover", queue=QUEUE, queueing_lock="learning-recover")
async def recover_stalled(timestamp: int) -> int:
    """Every minute: requeue learning jobs of workers that stopped sending heartbeats."""
    return await jobs_recover_async()
