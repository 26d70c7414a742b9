"""Background tasks of the memory store: procrastinate imports this module from its import
paths (PROCRASTINATE_IMPORT_PATHS) when a worker starts or a task is deferred by name."""

from memstore.feed.jobs import feed_deliver, feed_dispatch, feed_tick
from memstore.learning.queue import learn_exchange, recover_stalled
from memstore.recall.jobs import embed_backfill, embed_tick
from memstore.upkeep.jobs import synthesize_store, upkeep_store, upkeep_tick

__all__ = [
    "embed_backfill",
    "embed_tick",
    "feed_deliver",
    "feed_dispatch",
    "feed_tick",
    "learn_exchange",
    "recover_stalled",
    "synthesize_store",
    "upkeep_store",
    "upkeep_tick",
]
