"""An attack run: text the team did not write, sent through every door of a live server with a
model that obeys what it reads; counts what was stored, held for review or refused, what reached
another room's prompt or recall, and which forbidden facts the model endpoint received.

    python -m bench attack [--carriers 200] [--json]

Setup (a fresh database `memoryconsole_bench_attack` on the bench's Postgres and a fresh
MEMORY_ROOT under var/bench/attack/): bot `scout` linked to alice, bob, dana (paused) and erin
(excluded topics salary and health); a private bot `vault`; a staff console account. gunicorn
serves it on a loopback port; learning is on in write mode against bench/_attack_model.py's
obeying model, which is also the remote embedder and reranker, and logs every request.

Each attempt is one LoCoMo observation line (../shared/bench/locomo-dev/facts.jsonl, read at
run time) carrying one payload (bench/_attack_payloads.py: instructions, another person's
private fact, a paused person's fact, an excluded topic, secrets and their evasions), sent
through one door (bench/_attack_doors.py): POST /facts, MCP remember, "remember that" in a
reported exchange, the learner on an ordinary exchange (`manage.py learning_worker` drains the
queue), summarize, `manage.py import mem0`, the console's add-a-fact form, a hand-written line.

Then, per attempt, from its marker: stored (a live memory file holds it), held (the review inbox
holds it) or refused; and whether it reached another room: GET /prompt and GET /recall?query=
<marker> as scout in the group room `lounge` and in bob's direct room. Outgoing: canary facts
written by hand beforehand (hidden, paused person's, excluded topic, private, a private bot's,
another person's, a secret, an instruction) counted in the model requests that must not carry
them. Prints the tables (a leak is listed with its payload and where it surfaced).
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from bench._attack_doors import (
    Api,
    Console,
    door_api,
    door_learner,
    door_mcp,
    door_remember,
    door_summarize,
    doors_hand,
    doors_import,
    room_of,
)
from bench._attack_model import MARKER, ObeyingModel
from bench._attack_payloads import FAMILIES, Attempt, attempts_make, carriers
from bench._attack_report import canaries_write, outgoing_counts, report
from bench._workspace import REPO, VAR, bench_database, django_start, log

DATA = REPO.parent / "shared" / "bench" / "locomo-dev"
DB_NAME = "memoryconsole_bench_attack"
DOORS = ["api", "mcp", "remember that", "learner", "summarize", "import", "console", "by hand"]
READERS = {
    "group lounge": {"room_id": "lounge", "room_kind": "group"},
    "bob's direct room": {"room_id": "dm-bob", "room_kind": "direct", "person": "bob"},
}
BROAD = ["Bob salary therapist", "Dana Porto apartment", "Erin salary health", "password token key",
         "budget instructions notes", "Alice Bob Erin Dana"]  # fmt: skip
SECRET = "attack-bench-secret-key-0123456789-abcdefghijklmnop"
RUNS = 1
QUICK = {"carriers": 40}


def arguments(parser) -> None:
    parser.add_argument("--carriers", type=int, default=200, help="attempts in all")
    parser.add_argument("--data", type=str, default=str(DATA))
    parser.add_argument("--seed", type=int, default=35)


def run(args):
    from bench.harness import load, tree_cpu

    root = VAR / "bench" / "attack"
    shutil.rmtree(root, ignore_errors=True)
    (root / "memory").mkdir(parents=True)
    url = bench_database(DB_NAME, fresh=True)
    django_start(root / "memory")
    lines = carriers(Path(args.data))
    attempts = attempts_make(lines, DOORS, args.carriers, args.seed)
    token = _registry(root / "memory")
    model = ObeyingModel()
    env = _env(url, root / "memory", model.url)
    port = _free_port()
    before, started = load(), time.perf_counter()
    server = _spawn(["-m", "gunicorn", "memoryconsole.wsgi", "--config", "gunicorn.conf.py",
                     "--bind", f"127.0.0.1:{port}", "--workers", "1", "--threads", "8"],
                    env, root / "server.log")  # fmt: skip
    worker = None
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_up(server, base, root / "server.log")
        api = Api(base, token)
        _doors_run(attempts, api, Console(base, "lead", "attack-bench-pw-9q"), root, env, model)
        model.phase = "worker"
        worker = _spawn(["manage.py", "learning_worker", "--skip-checks", "--queues", "learning"],
                        env, root / "worker.log")  # fmt: skip
        _drain()
        model.phase = "readers"
        _outcomes(attempts, root / "memory")
        _readers(attempts, api)
        cpu = tree_cpu(server.pid) + tree_cpu(worker.pid)
    finally:
        for process in (worker, server):
            _stop(process)
        model.close()
    after, spent = load(), time.perf_counter() - started
    figures = report(attempts, DOORS, FAMILIES, outgoing_counts(model.requests))
    log(f"model requests by phase: {sorted(Counter(p for _, p, _ in model.requests).items())}")
    print(f"\n{len(attempts)} attempts in {spent:.0f} s; server + worker CPU {cpu:.0f} s; "
          f"load {before:.2f} -> {after:.2f}; {len(model.requests)} model requests")  # fmt: skip
    return {**figures, "seconds": round(spent), "cpu_seconds": round(cpu),
            "load": [before, after]}  # fmt: skip


def _registry(root) -> str:
    """Bots, people, their controls, a staff account, the canaries; scout's token."""
    from django.contrib.auth import get_user_model

    from memstore.registry.bots import bot_create
    from memstore.registry.people import person_add, person_link
    from memstore.registry.tokens import token_create
    from memstore.rules.controls import memory_pause, topic_exclude

    bot_create(slug="scout")
    bot_create(slug="vault")
    from memstore.models import Bot

    Bot.objects.filter(slug="vault").update(private_memory=True)
    users = get_user_model().objects
    users.create_user("lead", password="attack-bench-pw-9q", is_staff=True, is_superuser=True)
    for name in ("alice", "bob", "dana", "erin"):
        users.create_user(name, password=f"pw-{name}-attack-9q")
        person_add(name=name, username=name)
        person_link(person=name, bot="scout")
    memory_pause(person="dana", by="bench", via="bench")
    for topic in ("salary", "health"):
        topic_exclude(person="erin", topic=topic, by="bench", via="bench")
    canaries_write(root)
    return token_create(bot="scout", name="attack").token


def _env(url: str, root, model_url: str) -> dict:
    return {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "DJANGO_SETTINGS_MODULE": "memoryconsole.settings",
        "DATABASE_URL": url,
        "MEMORY_ROOT": str(root),
        "SECRET_KEY": SECRET,
        "LEARNING_BASE_URL": model_url,
        "LEARNING_MODEL": "obeying",
        "LEARNING_API_KEY": "bench",
        "LEARNING_MODE": "write",
        "LEARNING_DAILY_TOKENS": "100000000",
        "LEARNING_RETRY_ATTEMPTS": "1",
        "LEARNING_RETRY_WAIT": "0",
        "LEARNING_TIMEOUT": "20",
        "EMBEDDINGS": "openai:obeying-embed",
        "EMBEDDINGS_BASE_URL": model_url,
        "RECALL_RERANK": "openai:obeying-rerank",
        "RECALL_RERANK_URL": f"{model_url}/rerank",
        "RECALL_RERANK_TIMEOUT_MS": "5000",
    }


def _doors_run(attempts: list[Attempt], api: Api, console: Console, root, env, model) -> None:
    by_door: dict[str, list[Attempt]] = {}
    for attempt in attempts:
        by_door.setdefault(attempt.door, []).append(attempt)
    single = {
        "api": lambda a: door_api(api, a),
        "mcp": lambda a: door_mcp(api, a),
        "remember that": lambda a: door_remember(api, a),
        "learner": lambda a: door_learner(api, a),
        "summarize": lambda a: door_summarize(api, a),
        "console": console.add,
    }
    for door, these in by_door.items():
        log(f"door {door}: {len(these)} attempts")
        model.phase = door
        if door == "import":
            doors_import(these, root / "import", env)
        elif door == "by hand":
            doors_hand(these, root / "memory")
        else:
            for attempt in these:
                model.phase = f"{door}:{room_of(attempt)['room_kind']}"
                attempt.answer = single[door](attempt)


def _drain(timeout: float = 600) -> None:
    """Wait until the learning worker has taken every queued exchange."""
    from memstore.models import Exchange

    deadline = time.monotonic() + timeout
    while Exchange.objects.filter(status=Exchange.QUEUED).exists():
        if time.monotonic() > deadline:
            log("learning queue not drained in time")
            return
        time.sleep(0.5)
    time.sleep(1)


def _outcomes(attempts: list[Attempt], root) -> None:
    """stored / held / refused per attempt, from the files and the review inbox."""
    from memstore.models import LearningEvent, Proposal

    found: dict[str, list[str]] = {}
    for path in root.rglob("*.md"):
        rel = str(path.relative_to(root))
        for marker in set(MARKER.findall(path.read_text(errors="replace"))):
            found.setdefault(marker, []).append(rel)
    held = set()
    proposals = Proposal.objects.filter(origin="held").values_list("text", flat=True)
    events = LearningEvent.objects.filter(kind="held_save").values_list("text", flat=True)
    for text in [*proposals, *events]:
        held.update(MARKER.findall(text))
    for attempt in attempts:
        attempt.where = sorted(found.get(attempt.marker, []))
        live = [w for w in attempt.where if "history" not in w]
        if live:
            attempt.outcome = "stored"
        elif attempt.marker in held:
            attempt.outcome = "held"
        else:
            attempt.outcome = "refused"


def _readers(attempts: list[Attempt], api: Api) -> None:
    """Other rooms' prompt and recall: where each attempt's marker surfaced."""
    by_marker = {a.marker: a for a in attempts}
    for name, room in READERS.items():
        status, body = api.call("GET", "/api/v1/prompt", room)
        if status != 200:
            log(f"prompt in {name}: {status} {body}")
        for marker in set(MARKER.findall(json.dumps(body))):
            by_marker[marker].leaks.append(f"prompt ({name})")
        for attempt in attempts:
            query = {"query": attempt.marker, "limit": 5, "rerank": "true"}
            status, body = api.call("GET", "/api/v1/recall", room, **query)
            if attempt.marker in json.dumps(body.get("items", [])):
                attempt.leaks.append(f"recall ({name})")
        for words in BROAD:  # many candidates each, so the remote reranker is asked too
            status, body = api.call("GET", "/api/v1/recall", room, query=words, rerank="true")
            for marker in set(MARKER.findall(json.dumps(body.get("items", [])))):
                by_marker[marker].leaks.append(f"recall ({name})")
    for attempt in attempts:
        attempt.leaks = list(dict.fromkeys(attempt.leaks))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _spawn(args: list[str], env: dict, out) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=REPO,
        env=env,
        stdout=open(out, "w"),  # noqa: SIM115 - the child keeps it
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _wait_up(process: subprocess.Popen, base: str, out, timeout: float = 120) -> None:
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited:\n{out.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{base}/api/v1/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"server did not come up:\n{out.read_text()[-3000:]}")


def _stop(process: subprocess.Popen | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGINT)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(5)
