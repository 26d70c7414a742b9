"""`/metrics` in Prometheus's text format: the processes' counters plus the server's state now.

The counters and histograms are `memstore.metrics`' (added up over every gunicorn worker when
`PROMETHEUS_MULTIPROC_DIR` is set); the gauges are read at scrape time from the same check as
`GET /api/v1/health` (`readiness.server_health`): whether the database answers, the learning
queue's backlog and live workers, the memory volume's free space; and memory's own backlog
(`memstore.recall.backlog`, the count every answer reads): facts still being indexed, facts
found by words only (no vector yet) and how long the oldest has waited. A scrape costs one
short statement, and a scan of the index at most every few seconds.
"""

import os
from collections.abc import Iterator

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from memstore.recall.backlog import memory_backlog
from memstore.upkeep.readiness import server_health

CONTENT_TYPE = CONTENT_TYPE_LATEST


class _ServerState(Collector):
    """The gauges a scrape reads now."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        health = server_health()
        yield GaugeMetricFamily(
            "memory_console_database_up",
            "1 when the database answered the health check's question.",
            value=1.0 if health.database == "ok" else 0.0,
        )
        yield GaugeMetricFamily(
            "memory_console_database_check_seconds",
            "How long the health check's database question took.",
            value=health.database_ms / 1000,
        )
        yield GaugeMetricFamily(
            "memory_console_memory_volume_free_bytes",
            "Free space on the volume holding MEMORY_ROOT.",
            value=float(health.volume.free_bytes),
        )
        yield GaugeMetricFamily(
            "memory_console_memory_volume_writable",
            "1 when the memory volume takes writes (not read-only, not full).",
            value=0.0 if health.volume.problem else 1.0,
        )
        if health.queue is not None:
            yield GaugeMetricFamily(
                "memory_console_learning_queue_waiting",
                "Reported exchanges waiting for the learner.",
                value=float(health.queue.waiting),
            )
            yield GaugeMetricFamily(
                "memory_console_learning_queue_oldest_seconds",
                "Age of the oldest exchange waiting for the learner (0 when none waits).",
                value=health.queue.oldest_seconds or 0.0,
            )
            yield GaugeMetricFamily(
                "memory_console_learning_workers",
                "Learning workers that sent a heartbeat lately.",
                value=float(health.queue.workers),
            )
            yield from _backlog()


def _backlog() -> Iterator[GaugeMetricFamily]:
    backlog = memory_backlog()
    yield GaugeMetricFamily(
        "memory_console_index_backlog_facts",
        "Facts changed on disk still being indexed by this process (not searchable yet).",
        value=float(backlog.indexing),
    )
    yield GaugeMetricFamily(
        "memory_console_vector_backlog_facts",
        "Indexed facts without a vector yet: recall finds them by their words only.",
        value=float(backlog.words_only),
    )
    yield GaugeMetricFamily(
        "memory_console_backlog_oldest_seconds",
        "How long the oldest part of memory's backlog has waited (0 when none waits).",
        value=backlog.age_seconds(),
    )


def metrics_text() -> bytes:
    """Everything, in the text exposition format."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
    else:
        registry = CollectorRegistry()
        registry.register(_Process())
    registry.register(_ServerState())
    return generate_latest(registry)


class _Process(Collector):
    """One process's own values (no gunicorn): what the default registry holds."""

    def collect(self):
        return REGISTRY.collect()
