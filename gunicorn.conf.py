"""Gunicorn settings for `./dev serve`; gunicorn also reads this file by itself when started from
the repository folder (`gunicorn memoryconsole.wsgi`). Command-line flags override it.

Threaded workers: each of `workers` processes serves up to `threads` requests at once, and a
connection that sends nothing waits in the worker's poller, not in a thread. A client that
sends its headers or body very slowly holds one thread while it does (gunicorn has no deadline
for reading a request), and one worker may accept most of them, so what counts is the threads
of one worker. Measured (issue 28; 20 ordinary GET /login/ while slow-header clients trickle a
byte every 0.2 s, 2 workers, this 2-core machine):

    threads  slow clients  ordinary requests
          8             0  median 2 ms, worst 5 ms
          8            32  all 20 waited 10 s (stalled)
         32            32  median 37 ms, 9 of 20 waited 10 s (one worker held most)
         48            32  median 2 ms, worst 40-48 ms (two runs)
         48            40  median 2 ms, worst 31 ms
         48            64  9 of 20 waited 10 s
         64            32  median 3 ms, worst 18 ms

So 48 threads: the bare server survives about 40 slow clients; past that, put a proxy that
buffers whole requests in front (deploy/nginx.conf; nginx buffers by default), and slow
clients never reach gunicorn. An idle thread costs little; a thread that served a request
keeps its database connection for CONN_MAX_AGE (60 s), so workers x threads must stay below
Postgres's max_connections (the embedded server allows 200). tests/test_gunicorn.py checks 32.

Preloading: the master imports the app (Django, numpy, the code, the URL configuration) before it
forks, so the workers share those pages. The embedding model is not loaded there: an onnxruntime session made before
a fork crashes the forked workers (SIGSEGV/SIGABRT, measured), so each worker loads the model and
runs it once right after it starts, before it takes a request; the first search after a start
then does not wait for the model (docs/benchmarks.md, "Model load and worker memory"). The
master opens no database connection. Code changes need a restart, not a HUP.
"""

import os
import shutil
from pathlib import Path


# /metrics adds up every worker's counters (memstore.metrics): each worker writes its values to
# files in a folder of this server's own, which must be named before the app (and
# prometheus_client) is imported. A folder left by a server that is gone is removed, so a restart
# begins from zero rather than from a dead server's values.
def _metrics_folder() -> Path:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    from memoryconsole.config import home_dir  # the data folder, in a checkout or a wheel

    base = home_dir(Path(__file__).resolve().parent) / "metrics"
    for old in base.glob("gunicorn-*"):
        pid = old.name.removeprefix("gunicorn-")
        if not pid.isdigit() or not Path(f"/proc/{pid}").exists():
            shutil.rmtree(old, ignore_errors=True)
    return base / f"gunicorn-{os.getpid()}"


_METRICS_DIR = _metrics_folder()
_METRICS_DIR.mkdir(parents=True, exist_ok=True)
os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(_METRICS_DIR)


# gunicorn's control socket (for `gunicornc`) is one path per user by default
# ($XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl): a second server run by the same
# user took it over from the first, and the first to stop removed it. Each server has its own,
# in the data folder's run/, named by the master's pid as its metrics folder is:
# `gunicornc -s var/run/gunicorn-<pid>.ctl`. One a server that is gone left is removed. A path
# too long for a Unix socket (108 bytes) means no control socket, not a warning at each start.
def _control_socket() -> Path:
    from memoryconsole.config import home_dir

    run = home_dir(Path(__file__).resolve().parent) / "run"
    run.mkdir(parents=True, exist_ok=True)
    for old in run.glob("gunicorn-*.ctl"):
        pid = old.name.removeprefix("gunicorn-").removesuffix(".ctl")
        if not pid.isdigit() or not Path(f"/proc/{pid}").exists():
            old.unlink(missing_ok=True)
    return run / f"gunicorn-{os.getpid()}.ctl"


control_socket = str(_control_socket())
control_socket_disable = len(os.fsencode(control_socket)) >= 108


worker_class = "gthread"
workers = 2
threads = 48
preload_app = True
# Seconds a worker may go silent before it is restarted (a stuck request), and that a stopping
# worker gets to finish what it is doing.
timeout = 30
graceful_timeout = 30
# Seconds an idle keep-alive connection is kept open.
keepalive = 5


def _model_warm() -> None:
    from django.db import connections

    from memstore.recall.vectors import embedder_current

    embedder = embedder_current()
    if embedder is not None:
        embedder.embed_query("warm up")  # the first run allocates onnxruntime's buffers
    connections.close_all()  # the first request opens its own


def when_ready(server) -> None:
    """In the master, before it forks: load the URL configuration too (Django does so on the
    first request, and the MCP endpoint's imports take a second), so every worker shares it."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 (the attribute loads the patterns)


def post_worker_init(worker) -> None:
    """In each worker, once it has the app and before it serves: load and warm the model."""
    _model_warm()


def child_exit(server, worker) -> None:
    """A worker is gone: its live gauges stop counting (its counters stay in the totals)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
