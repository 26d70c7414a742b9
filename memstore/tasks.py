"""Background tasks of the memory store, found by procrastinate's Django autodiscovery
(it imports `<app>.tasks` of every installed app when the worker starts)."""

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
