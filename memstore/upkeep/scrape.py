"""`/metrics` in Prometheus's text format: the processes' counters plus the server's state now.

The counters and histograms are `memstore.metrics`' (added up over every gunicorn worker when
`PROMETHEUS_MULTIPROC_DIR` is set); the gauges are read at scrape time from the same check as
`GET /api/v1/health` (`readiness.server_health`): whether the database answers, the learning
queue's backlog and live workers, the memory volume's free space. A scrape costs one short
statement.
"""

import os
from collections.abc import Iterator

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

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
