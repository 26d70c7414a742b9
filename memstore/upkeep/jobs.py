"""Upkeep and synthesis on the durable queue (procrastinate, the learner's Postgres queue).

A periodic task (UPKEEP_CRON, checked by every worker) queues one upkeep pass and one synthesis
pass per bot that has memory, each with a queueing lock per bot so a slow pass is never queued
twice. Both are off until UPKEEP_MODE / SYNTHESIS_MODE say report or write. A worker killed
mid-pass leaves its job to the learner's stalled-job recovery; a re-run repeats nothing
(proposals are keyed; applying one is idempotent).

The console asks for a health report of a large store here too (`health_enqueue`, a queueing
lock per store), and shows the last finished one until the worker has made it.
"""

import logging

from django.conf import settings
from django.db import close_old_connections, transaction
from procrastinate.contrib.django import app

from memstore.learning.queue import commits_relaxed
from memstore.llm.config import learner_config, model_client
from memstore.upkeep.store import store_bots

logger = logging.getLogger(__name__)
QUEUE = "upkeep"


def upkeep_enqueue_all() -> int:
    """Queue an upkeep (and, when on, a synthesis) pass for every bot; returns jobs queued."""
    count = 0
    for bot in store_bots():
        if settings.UPKEEP_MODE != "off":
            count += _defer(upkeep_store, f"upkeep-{bot}", bot=bot)
        if settings.SYNTHESIS_MODE != "off":
            count += _defer(synthesize_store, f"synthesis-{bot}", bot=bot)
    return count


def _defer(task, lock: str, **kwargs) -> int:
    from procrastinate.exceptions import AlreadyEnqueued

    try:
        # A savepoint: the refused insert must not abort a caller's transaction.
        with transaction.atomic():
            task.configure(queueing_lock=lock).defer(**kwargs)
    except AlreadyEnqueued:
        return 0
    return 1


@app.task(name="memstore.upkeep.store", queue=QUEUE)
def upkeep_store(bot: str) -> str:
    """One upkeep pass over a bot's store, in the configured mode."""
    from memstore.upkeep.run import upkeep_run

    close_old_connections()
    commits_relaxed()
    try:
        mode = settings.UPKEEP_MODE
        if mode == "off":
            return "off"
        report = upkeep_run(bot=bot, mode=mode, client=model_client(learner_config()))
        return f"{report.applied} applied, {report.left_for_people} left for people"
    finally:
        close_old_connections()


@app.task(name="memstore.synthesis.store", queue=QUEUE)
def synthesize_store(bot: str) -> str:
    """One synthesis pass over a bot's store, in the configured mode."""
    from memstore.upkeep.synthesis import synthesis_run

    close_old_connections()
    commits_relaxed()
    try:
        mode = settings.SYNTHESIS_MODE
        client = model_client(learner_config())
        if mode == "off" or client is None:
            return "off"
        report = synthesis_run(bot=bot, mode=mode, client=client)
        return f"{report.applied} applied, {report.proposed} proposed"
    finally:
        close_old_connections()


@app.periodic(cron=settings.UPKEEP_CRON, periodic_id="memstore.upkeep.tick")
@app.task(name="memstore.upkeep.tick", queue=QUEUE, queueing_lock="upkeep-tick")
def upkeep_tick(timestamp: int) -> int:
    """On UPKEEP_CRON: drop memory-sources records past keeping, and queue the passes of every
    bot (nothing while both modes are off)."""
    from memstore.learning.sources import sources_prune

    close_old_connections()
    try:
        sources_prune()
        return upkeep_enqueue_all()
    finally:
        close_old_connections()


def health_enqueue(*, key: str) -> int:
    """Queue a health report of a store (`memstore.upkeep.health_snapshots` keys); 0 when one
    is already waiting."""
    return _defer(health_store, f"health-{key}", key=key)


@app.task(name="memstore.upkeep.health", queue=QUEUE)
def health_store(key: str) -> str:
    """Make and keep the health report of a store (a bot's, or the workspace's)."""
    from memstore.upkeep.health_snapshots import health_job

    close_old_connections()
    commits_relaxed()
    try:
        return health_job(key=key)
    finally:
        close_old_connections()
