"""`memory-console serve`: everything one person needs running, in the right order.

A taken port is said before anything else runs; then the database is migrated (the embedded
PostgreSQL starts in the data folder on the first connection unless DATABASE_URL is set; the
word index follows SEARCH_LANGUAGE, `memstore.apps`), the demo workspace is made when
asked, static files are collected, one learning worker starts in the background (its log in
the data folder) and gunicorn serves with the project's gunicorn.conf.py until it is stopped
(Ctrl-C or SIGTERM), after which the worker is stopped too.

Each step runs as its own process, as `./dev serve` always did: gunicorn's master must hold no
database connection before it forks (gunicorn.conf.py), and the embedded server is shared by
whichever processes use it.

Does not: daemonise, restart a crashed worker or server (systemd or compose does that in
production, docs/deploy.md), or create an account other than the demo's.
"""

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from memoryconsole.cli import CREATING
from memoryconsole.config import assets_dir, home_dir

PACKAGE = Path(__file__).resolve().parent


def address(host: str, port: str) -> tuple[str, int]:
    """The (host, port) to bind, or ValueError saying what is wrong with them."""
    host = host.strip().strip("[]")
    if not host:
        raise ValueError("the host must not be empty (e.g. --host 127.0.0.1)")
    if not port.strip().isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"the port must be a number from 1 to 65535, not {port!r}")
    return host, int(port)


def port_taken(host: str, port: int) -> str | None:
    """Why (host, port) cannot be bound, or None when it can."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as probe:
        try:
            probe.bind((host, port))
        except OSError as error:
            return error.strerror or str(error)
    return None


def _say(text: str) -> None:
    print(f"\033[1m==> {text}\033[0m", file=sys.stderr, flush=True)


def _manage(*args: str) -> list[str]:
    return [sys.executable, "-m", "memoryconsole", "manage", *args]


def serve(host: str, port: int, *, demo: bool = False) -> int:
    """Run everything until gunicorn stops; its exit status."""
    if reason := port_taken(host, port):
        print(
            f"Port {port} on {host} is taken ({reason}). Stop whatever uses it, or pick "
            f"another: memory-console serve --port {port + 1}",
            file=sys.stderr,
        )
        return 1
    home = home_dir(PACKAGE.parent).resolve()
    # Every process started below agrees on the folder, wherever it is started from.
    os.environ.setdefault("MEMORY_CONSOLE_HOME", str(home))
    os.environ[CREATING] = "1"  # the steps below may create the data folder; `manage` never does
    first_run = not (home / "pgdata").exists() and not os.environ.get("DATABASE_URL")
    _say(f"Data folder: {home}")
    _say("Preparing the database" + (" and the demo workspace" if demo else ""))
    # migrate also puts the word index in SEARCH_LANGUAGE (a no-op unless the setting changed).
    steps = [("migrate", "--no-input", "-v0")]
    if demo:
        steps.append(("demo",))
    steps.append(("collectstatic", "--no-input", "-v0"))
    for step in steps:
        done = subprocess.run(_manage(*step), check=False)
        if done.returncode != 0:
            print(f"`memory-console manage {' '.join(step)}` failed.", file=sys.stderr)
            return done.returncode
    home.mkdir(parents=True, exist_ok=True)
    log = home / "worker.log"
    _say(f"Starting a learning worker in the background (log: {log})")
    # The worker's log may quote what it learned from: readable by the service's user only.
    with os.fdopen(os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "ab") as output:
        os.chmod(log, 0o600)
        worker = subprocess.Popen(
            _manage("learning_worker", "--skip-checks"), stdout=output, stderr=output
        )
    try:
        if first_run and not demo:
            _say(
                "A new data folder: make your first login with `memory-console manage "
                "createsuperuser`, or serve --demo for a demo workspace"
            )
        bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        _say(f"Starting the server on {bind}")
        return _gunicorn(bind, on_ready=lambda: _say(f"Serving on http://{bind} (Ctrl-C stops)"))
    finally:
        _stop(worker)


def gunicorn_command(bind: str) -> list[str]:
    """gunicorn with the project's gunicorn.conf.py (the checkout's, or the copy the wheel
    carries), bound to `bind`, access log on stdout."""
    config = assets_dir(PACKAGE) / "gunicorn.conf.py"
    return [
        *(sys.executable, "-m", "gunicorn", "memoryconsole.wsgi", "--config", str(config)),
        *("--bind", bind, "--access-logfile", "-"),
    ]


def _gunicorn(bind: str, on_ready) -> int:
    server = subprocess.Popen(gunicorn_command(bind))

    def forward(signum, _frame):
        server.send_signal(signum)  # gunicorn stops gracefully on SIGTERM and SIGINT

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        if _answers(bind, server):
            on_ready()
        return server.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _answers(bind: str, server: subprocess.Popen, say_every: float = 5.0) -> bool:
    """Wait until the server answers `GET /api/v1/health` (any HTTP status: it is up), saying
    how long it has taken every few seconds; False if it stopped first."""
    url = f"http://{bind}/api/v1/health"
    started = last = time.monotonic()
    while server.poll() is None:
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return True
        except urllib.error.HTTPError:
            return True  # it answered (503 while the database is away is still an answer)
        except OSError:
            time.sleep(0.25)
        if (now := time.monotonic()) - last >= say_every:
            last = now
            _say(f"Still starting ({now - started:.0f} s): the workers load the code once")
    return False


def _stop(worker: subprocess.Popen) -> None:
    if worker.poll() is None:
        worker.terminate()
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
