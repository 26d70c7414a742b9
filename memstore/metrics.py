"""The process's own measurements, for `/metrics`: requests, their durations, and index syncs.

Counters and histograms from `prometheus_client`. Under gunicorn each worker is its own
process, so `gunicorn.conf.py` sets `PROMETHEUS_MULTIPROC_DIR` before anything imports this:
every worker then writes its values to a small file there and a scrape, whichever worker
answers it, adds them all up (`memstore.upkeep.scrape`). Without it (`manage.py`, tests) the
values live in this process only.

Labels stay few and bounded: the surface (api, mcp, oauth, console, static, metrics), the view's URL
name, the method and the status class; never a bot, a person or a path.
"""

from prometheus_client import Counter, Histogram

_DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

REQUESTS = Counter(
    "memory_console_requests",
    "HTTP requests answered, by surface, view, method and status class.",
    ["surface", "view", "method", "status"],
)
REQUEST_SECONDS = Histogram(
    "memory_console_request_duration_seconds",
    "Time to answer an HTTP request, by surface and view (view=recall is a bot's recall).",
    ["surface", "view"],
    buckets=_DURATION_BUCKETS,
)
SYNCS = Counter("memory_console_sync_runs", "Syncs before read: the index checked against files.")
SYNC_FILES_CHANGED = Counter(
    "memory_console_sync_files_changed", "Files a sync found changed and parsed (or deferred)."
)
SYNC_FILES_DEFERRED = Counter(
    "memory_console_sync_files_deferred",
    "Changed files a bounded read left to the background sync (answers came from the index).",
)
SYNC_SECONDS = Histogram(
    "memory_console_sync_duration_seconds",
    "Time a sync before read took, stat check included.",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0),
)


def sync_observed(seconds: float, changed: int, deferred: int) -> None:
    """Count one sync before read."""
    SYNCS.inc()
    SYNC_SECONDS.observe(seconds)
    if changed:
        SYNC_FILES_CHANGED.inc(changed)
    if deferred:
        SYNC_FILES_DEFERRED.inc(deferred)


def request_observed(surface: str, view: str, method: str, status: int, seconds: float) -> None:
    """Count one answered HTTP request."""
    REQUESTS.labels(surface, view, method, f"{status // 100}xx").inc()
    REQUEST_SECONDS.labels(surface, view).observe(seconds)
