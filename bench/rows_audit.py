"""The row audit of issue 38: design rows 44–48 (../shared/seeds/ 003 and 004) checked end to end
against a live server with data the team did not write, each printed PASS or FAIL with its
evidence, then one Markdown table with the command, the date and the load.

    python -m bench rows_audit [--lines 353] [--quick]

Setup: a throwaway database `memoryconsole_bench_rows_audit` on the bench's Postgres (dropped at the end) and a throwaway
MEMORY_ROOT; bot `notes` (row 44's team memory), bot `scout` linked to melanie and caroline (LoCoMo's speakers), bots `lessons-a`
to `lessons-d` (row 45), an app `workspace-app` (row 47's workspace records), a staff console
account `lead`. gunicorn serves it on a loopback port
(AGENT_LESSONS=propose, learning on in write mode against bench/_attack_model.py's scripted
OpenAI-compatible model, which answers every sentence of a person's message as a fact);
`manage.py learning_worker` is the real procrastinate worker, started only once row 46 has
queued its exchanges. Data: LoCoMo's observation lines (../shared/bench/locomo-dev/facts.jsonl,
read at run time). The checks are bench/_rows_checks.py's.
"""

import json
import os
import shutil
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench._attack_doors import BOT, Api
from bench._attack_model import ObeyingModel
from bench._rows_checks import (
    Person,
    Verdict,
    row_lessons,
    row_lookback,
    row_provenance,
    row_sensitive,
)
from bench._rows_shape import row_shape
from bench._workspace import REPO, bench_database, django_start
from bench.attack import _drain, _env, _free_port, _spawn, _stop, _wait_up

DATA = REPO.parent / "shared" / "bench" / "locomo-dev"
DB_NAME = "memoryconsole_bench_rows_audit"
LEAD = ("lead", "rows-audit-pw-7k")
LESSON_BOTS = ("lessons-a", "lessons-b", "lessons-c", "lessons-d")
RUNS = 1
QUICK = {"lines": 60}


def arguments(parser) -> None:
    parser.add_argument("--lines", type=int, default=0, help="LoCoMo lines for row 44 (0: all)")
    parser.add_argument("--data", type=str, default=str(DATA))


def locomo_lines(data: Path, limit: int) -> list[dict]:
    """LoCoMo's observation lines, in file order (all of them with limit 0)."""
    with (data / "facts.jsonl").open() as handle:
        lines = [json.loads(line) for line in handle if line.strip()]
    return lines[:limit] if limit else lines


def _registry() -> dict[str, str]:
    """Bots, people, the staff account; one token per bot."""
    from django.contrib.auth import get_user_model

    from memstore.registry.bots import bot_create
    from memstore.registry.people import person_add, person_link
    from memstore.registry.tokens import token_create

    get_user_model().objects.create_user(
        LEAD[0], password=LEAD[1], is_staff=True, is_superuser=True
    )
    tokens = {}
    for slug in (BOT, "notes", *LESSON_BOTS, "workspace-app"):
        bot_create(slug=slug, app=slug == "workspace-app")
        tokens[slug] = token_create(bot=slug, name="rows-audit").token
    for name in ("alice", "melanie", "caroline"):
        person_add(name=name)
        person_link(person=name, bot=BOT)
    return tokens


def database_drop(url: str) -> None:
    """Drop the bench's throwaway database (from the server's `postgres` database)."""
    import psycopg
    from django.db import connections

    from memoryconsole.config import database_from_url

    connections.close_all()
    conf = database_from_url(url)
    params = {"host": conf["HOST"], "port": conf["PORT"], "user": conf["USER"],
              "password": conf["PASSWORD"], "dbname": "postgres"}  # fmt: skip
    with psycopg.connect(**{k: v for k, v in params.items() if v}, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')


def run(args):
    before, started = os.getloadavg()[0], time.perf_counter()
    lines = locomo_lines(Path(args.data), args.lines)
    every = locomo_lines(Path(args.data), 0)
    folder = Path(tempfile.mkdtemp(prefix="rows-audit-"))
    root = folder / "memory"
    root.mkdir()
    url = bench_database(DB_NAME, fresh=True)
    os.environ["PROMPT_SHAPE"] = "seed"  # the server's, read here too (row 47)
    django_start(root)
    tokens = _registry()
    model = ObeyingModel()
    env = _env(url, root, model.url) | {"AGENT_LESSONS": "propose", "LOG_LEVEL": "ERROR",
                                          "PROMPT_SHAPE": "seed"}  # fmt: skip
    os.environ["AGENT_LESSONS"] = "propose"
    port = _free_port()
    server = _spawn(["-m", "gunicorn", "memoryconsole.wsgi", "--config", "gunicorn.conf.py",
                     "--bind", f"127.0.0.1:{port}", "--workers", "1", "--threads", "4"],
                    env, folder / "server.log")  # fmt: skip
    worker = None
    verdicts: list[Verdict] = []
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_up(server, base, folder / "server.log")
        apis = {slug: Api(base, token) for slug, token in tokens.items()}
        console = Person(base, *LEAD)
        verdicts.append(row_sensitive(apis["notes"], lines))
        verdicts.append(row_shape(apis[BOT], apis["workspace-app"], every[-130:-60], folder, env))

        def drain() -> None:
            nonlocal worker
            if worker is None:
                worker = _spawn(["manage.py", "learning_worker", "--skip-checks", "--queues",
                                 "learning"], env, folder / "worker.log")  # fmt: skip
            _drain(timeout=300)

        verdicts.append(row_lookback(apis[BOT], every[-60:-40], root, console, drain))
        verdicts.append(row_lessons({b: apis[b] for b in LESSON_BOTS}, env, drain))
        verdicts.append(row_provenance(apis[BOT], every[-40:], root, console))
    finally:
        for process in (worker, server):
            _stop(process)
        model.close()
        shutil.rmtree(folder, ignore_errors=True)
        database_drop(url)
    after, spent = os.getloadavg()[0], time.perf_counter() - started
    verdicts.sort(key=lambda v: v.row)
    print(report(verdicts, args, before, after, spent))
    return {v.row: {"verdict": v.word, "evidence": v.evidence} for v in verdicts}


def report(verdicts: list[Verdict], args, before: float, after: float, spent: float) -> str:
    """Each row's verdict with its evidence, then the Markdown table."""
    command = "python -m bench rows_audit" + (" " + " ".join(args.argv) if args.argv else "")
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    out = [f"{v.row}: {v.word} — {v.evidence}" for v in verdicts]
    out += ["", "| row | verdict | evidence |", "| --- | --- | --- |"]
    out += [f"| {v.row} | {v.word} | {v.evidence.replace('|', '/')} |" for v in verdicts]
    passed = sum(v.ok for v in verdicts)
    out += [
        "",
        f"{passed} of {len(verdicts)} rows pass. Command: `{command}`; {when}; {spent:.0f} s; "
        f"load {before:.2f} -> {after:.2f} ({os.cpu_count()} cores).",
    ]
    return "\n".join(out)
