"""The webhooks on the durable queue (procrastinate, the same workers that learn):

    feed_dispatch   make the deliveries of new events (one run at a time; at most one waits)
    feed_deliver    send one delivery; a failure is retried with backoff (WEBHOOK_RETRY_WAIT
                    seconds, doubled per attempt, WEBHOOK_RETRY_ATTEMPTS tries), then failed
    feed_tick       every minute: a dispatch run, so events whose kick was lost (a process
                    that died, a hand edit noticed by a read) go out anyway

A delivery job survives a worker's restart like any job; the receiver may see an event twice
(sent, then the worker died before recording it) and deduplicates by its id.
"""

from django.conf import settings
from django.db import close_old_connections
from procrastinate import BaseRetryStrategy, RetryDecision
from procrastinate.contrib.django import app
from procrastinate.jobs import Job

from memstore.feed.dispatch import DeliveryFailed, delivery_send, dispatch_run
from memstore.index.events import DISPATCH_TASK, dispatch_wanted

QUEUE = "webhooks"
DELIVER_TASK = "memstore.feed.deliver"


class DeliveryRetry(BaseRetryStrategy):
    """WEBHOOK_RETRY_WAIT seconds, doubled per attempt, for WEBHOOK_RETRY_ATTEMPTS tries."""

    def get_retry_decision(self, *, exception: BaseException, job: Job) -> RetryDecision | None:
        if not isinstance(exception, DeliveryFailed) or _final(job.attempts):
            return None
        wait = float(settings.WEBHOOK_RETRY_WAIT)
        return RetryDecision(retry_in={"seconds": wait * 2**job.attempts})


def _final(attempts: int) -> bool:
    return attempts + 1 >= int(settings.WEBHOOK_RETRY_ATTEMPTS)


@app.task(name=DISPATCH_TASK, queue=QUEUE, lock="feed-dispatch-run", pass_context=True)
def feed_dispatch(context) -> int:
    """Make the deliveries of every active endpoint's new events, each with its job."""
    close_old_connections()
    try:
        return dispatch_run(queue=lambda delivery_id: feed_deliver.defer(delivery_id=delivery_id))
    finally:
        close_old_connections()


@app.task(name=DELIVER_TASK, queue=QUEUE, retry=DeliveryRetry(), pass_context=True)
def feed_deliver(context, delivery_id: int) -> str:
    """Send one delivery (retried on failure; marked failed after the last try)."""
    close_old_connections()
    try:
        return delivery_send(delivery_id=delivery_id, final=_final(context.job.attempts))
    finally:
        close_old_connections()


@app.periodic(cron="* * * * *", periodic_id="memstore.feed.tick")
@app.task(name="memstore.feed.tick", queue=QUEUE, queueing_lock="feed-tick")
def feed_tick(timestamp: int) -> bool:
    """Every minute: queue a dispatch run when an endpoint is registered."""
    close_old_connections()
    try:
        return dispatch_wanted()
    finally:
        close_old_connections()
