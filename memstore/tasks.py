"""Background tasks of the memory store, found by procrastinate's Django autodiscovery
(it imports `<app>.tasks` of every installed app when the worker starts)."""

from memstore.learning.queue import learn_exchange, recover_stalled

__all__ = ["learn_exchange", "recover_stalled"]
