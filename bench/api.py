"""The bots' API under load: recall and the prompt section next to a trivial endpoint, same run.

    python -m bench api [--runs 3] [--seconds 6] [--clients 4] [--workers 2] [--fresh]
                        [--endpoints health,recall] [--embed-all]

Builds once (cached in var/bench/api/, its own database) a workspace of 100 bots x 1,000 facts of
their own, plus user memory for 20 people and 10 projects with 10 member bots each; starts
gunicorn as the README runs it in production; drives it from loopback client threads (plain
http.client, one connection each, reconnecting when the server closes it); and reports
requests/s, p50 and p99 per endpoint as the median over several runs, with the ratio to
/api/v1/health measured in the same run. Each request picks a random bot and talks from its
direct room with its person and project. Prints the tables. Targets: recall p50 <= 15 ms, p99 <= 40 ms at 4 clients.

By default it times `health` (the baseline) and `recall` (about 3 minutes once the workspace
is built); `--endpoints health,me,list,prompt,recall` times them all. Facts get vectors composed
from their words' (minutes; timing only) unless `--embed-all` embeds every fact with the model
(hours on 2 cores). Server CPU counts the gunicorn processes and the processes of the Postgres
server the bench uses (its postmaster's children), not other Postgres servers on the machine.
"""

import os
import platform
import random
import signal
import time
from pathlib import Path

from bench import harness
from bench._api_load import Result, free_port, load, start_server, startup_measure
from bench._api_workspace import (
    BENCH_DIR,
    BOTS,
    DB_NAME,
    ENDPOINTS,
    MEMBERS,
    OWN_FACTS,
    PERSONS,
    PROJECTS,
    WORDS,
    bot,
    person,
    prepare,
    project,
)
from bench._workspace import bench_database, log
from bench.harness import median, tree_cpu

# --- engine alone ------------------------------------------------------------------------------


def engine_times(endpoint: str, seconds: float, seed: int) -> list[float]:
    """recall_search or prompt_build called directly in this process (one client, no HTTP): what
    the memory engine costs by itself, so the API's share of a call can be read off."""
    from memstore.rooms.context import context_open

    rng = random.Random(seed)
    times: list[float] = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        b = rng.randrange(BOTS)
        ctx = context_open(
            bot=bot(b),
            room_id=f"dm-{b}",
            room_kind="direct",
            person=person(b % PERSONS),
            projects=[project(b % PROJECTS)],
        )
        began = time.perf_counter()
        if endpoint == "recall":
            from memstore.recall import recall_search

            words = [rng.choice(WORDS[k]).replace("-", " ") for k in rng.sample(sorted(WORDS), 2)]
            recall_search(ctx=ctx, query=" ".join(words), limit=20)
        else:
            from memstore.prompt.section import prompt_build

            prompt_build(ctx=ctx)
        times.append(time.perf_counter() - began)
    return times


# --- report --------------------------------------------------------------------------------------

LABELS = {
    "health": "`GET /api/v1/health` (trivial JSON, no token)",
    "me": "`GET /api/v1/me` (token + 2 queries)",
    "list": "`GET /api/v1/facts?limit=20`",
    "prompt": "`GET /api/v1/prompt`",
    "recall": "`GET /api/v1/recall?query=…&limit=20`",
}


def server_cpu(master: int, postmaster: int) -> float:
    """CPU seconds (user + system) used so far by the gunicorn master and its workers and by the
    bench's Postgres server (its postmaster and every backend), each with the CPU of the children
    it has reaped: a backend or worker that exits inside a window keeps its CPU in the total (it
    moves to its parent's reaped share), so a delta is never negative. Without the load
    generator or any other Postgres server on the machine."""
    return tree_cpu(master) + tree_cpu(postmaster)


def postmaster_pid() -> int:
    """The postmaster of the server this process is connected to (the parent of its backend)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    return int(Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()[1])


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def table(
    results: dict[str, list[Result]],
    single: dict[str, list[Result]],
    engine: dict[str, list[list[float]]],
    clients: int,
) -> list[str]:
    med = median
    base = med([r.pct(0.5) for r in results["health"]])
    rows = [
        f"| endpoint | req/s ({clients} clients) | p50 ms | p99 ms | p50 / health "
        "| p50 ms, 1 client | engine alone p50 ms | errors |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, runs in results.items():
        p50 = med([r.pct(0.5) for r in runs])
        alone = f"{med([pct(t, 0.5) for t in engine[name]]):.1f}" if name in engine else "—"
        rows.append(
            f"| {LABELS[name]} | {med([r.rps for r in runs]):.0f} | {p50:.1f} | "
            f"{med([r.pct(0.99) for r in runs]):.1f} | {p50 / base:.1f}x | "
            f"{med([r.pct(0.5) for r in single[name]]):.1f} | {alone} | "
            f"{sum(r.errors for r in runs + single[name])} |"
        )
    return rows


def ceiling(
    results: dict[str, list[Result]], cpu: dict[str, list[float]], loads: dict[str, list[float]]
) -> list[str]:
    """Each endpoint's CPU per request on the server side (gunicorn and Postgres) and the rate
    this machine's cores could serve at that cost: how close the measured rate comes to it."""
    med = median
    cores = os.cpu_count() or 1
    base = med(cpu["health"]) if cpu.get("health") else 0.0
    rows = [
        f"| endpoint | server CPU ms per request | CPU / health | ceiling req/s ({cores} cores "
        "÷ CPU) | measured req/s | share of the ceiling | load before → after |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, runs in results.items():
        per = med(cpu[name])
        top = cores * 1000 / per if per else float("inf")
        rps = med([r.rps for r in runs])
        ratio = f"{per / base:.1f}x" if base else "—"
        rows.append(
            f"| {LABELS[name]} | {per:.2f} | {ratio} | {top:.0f} | {rps:.0f} | {rps / top:.0%} "
            f"| {loads[name][0]:.1f} → {loads[name][-1]:.1f} |"
        )
    return rows


def findings(
    results: dict[str, list[Result]],
    single: dict[str, list[Result]],
    engine: dict[str, list[list[float]]],
    clients: int,
) -> list[str]:
    """Sentences computed from the figures: the API's share, saturation, the targets."""
    med = median
    out = []
    for name in ("recall", "prompt"):
        if name not in engine:
            continue
        one = med([r.pct(0.5) for r in single[name]])
        alone = med([pct(t, 0.5) for t in engine[name]])
        rps = med([r.rps for r in results[name]])
        out.append(
            f"- `{name}`: at 1 client the HTTP call takes {one:.1f} ms against {alone:.1f} ms for "
            f"the engine alone, so the API (token, context, validation, JSON, gunicorn) adds "
            f"about {one - alone:.1f} ms (both medians move by a few ms with the machine's "
            f"other work). At {clients} clients it serves {rps:.0f} req/s: {rps:.0f} x "
            f"{one:.1f} ms (the 1-client time, nearly all CPU in the app or in Postgres) = "
            f"{rps * one / 1000:.1f} cores of its own work on {os.cpu_count()} cores that also "
            f"ran other work, so each request waits for a core about as long as it runs."
        )
    if "recall" in results:
        p50 = med([r.pct(0.5) for r in results["recall"]])
        p99 = med([r.pct(0.99) for r in results["recall"]])
        met = "met" if p50 <= 15 and p99 <= 40 else "**not met**"
        out.append(
            f"- Targets (recall p50 <= 15 ms, p99 <= 40 ms at 4 clients): {met} "
            f"(p50 {p50:.1f} ms, p99 {p99:.1f} ms)."
        )
    return out


RUNS = 3


QUICK = {"runs": 1, "seconds": 1.0}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--seconds", type=float, default=6.0, help="per endpoint per run")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument(
        "--workers", type=int, default=2, help="gunicorn workers (as gunicorn.conf.py)"
    )
    parser.add_argument(
        "--endpoints", default="health,recall", help=f"any of {','.join(ENDPOINTS)}"
    )
    parser.add_argument("--fresh", action="store_true", help="rebuild the workspace")
    parser.add_argument(
        "--composed-vectors",
        action="store_true",
        help="(the default) compose fact vectors from embedded words: minutes, timing only",
    )
    parser.add_argument(
        "--embed-all", action="store_true", help="embed every fact with the model (hours)"
    )


def run(args):
    wanted = set(args.endpoints.split(",")) | {"health"}
    endpoints = [e for e in ENDPOINTS if e in wanted]
    import importlib.util

    for endpoint, module in (("recall", "memstore.recall"), ("prompt", "memstore.prompt")):
        if endpoint in endpoints and importlib.util.find_spec(module) is None:
            log(f"{module} is not installed: skipping {endpoint}")
            endpoints.remove(endpoint)

    env = {
        **os.environ,
        "DATABASE_URL": bench_database(DB_NAME),
        "MEMORY_ROOT": str(BENCH_DIR / "memory"),
        "DJANGO_SETTINGS_MODULE": "memoryconsole.settings",
        "LOG_LEVEL": "ERROR",
    }
    os.environ.update(env)
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    import django

    django.setup()
    tokens = prepare(args.fresh, not args.embed_all)
    postmaster = postmaster_pid()

    port = free_port()
    started = time.perf_counter()
    server = start_server(port, args.workers, env)
    startup = startup_measure(port, tokens, server.pid, time.perf_counter() - started)
    results: dict[str, list[Result]] = {e: [] for e in endpoints}
    single: dict[str, list[Result]] = {e: [] for e in endpoints}
    engine: dict[str, list[list[float]]] = {e: [] for e in endpoints if e in ("recall", "prompt")}
    cpu: dict[str, list[float]] = {e: [] for e in endpoints}  # server CPU ms per request
    loads: dict[str, list[float]] = {e: [] for e in endpoints}  # before and after each window
    load_before = os.getloadavg()[0]
    try:
        log("Warming up (every bot, several times, on every endpoint) ...")
        for endpoint in endpoints:
            load(port, endpoint, tokens, args.clients, 0, seed=0, sweep=2 * args.workers)
            if endpoint in engine:
                engine_times(endpoint, 2.0, seed=0)
        for run in range(1, args.runs + 1):
            for endpoint in endpoints:
                loads[endpoint].append(harness.load())
                cpu_before = server_cpu(server.pid, postmaster)
                result = load(port, endpoint, tokens, args.clients, args.seconds, seed=run)
                used = server_cpu(server.pid, postmaster) - cpu_before
                loads[endpoint].append(harness.load())
                cpu[endpoint].append(used * 1000 / max(result.requests, 1))
                results[endpoint].append(result)
                alone = load(port, endpoint, tokens, 1, args.seconds / 2, seed=run)
                single[endpoint].append(alone)
                note = ""
                if endpoint in engine:
                    engine[endpoint].append(engine_times(endpoint, args.seconds / 2, seed=run))
                    note = f"  engine alone p50 {pct(engine[endpoint][-1], 0.5):6.1f} ms"
                log(
                    f"run {run}/{args.runs} {endpoint:<7} {result.rps:7.0f} req/s  "
                    f"p50 {result.pct(0.5):6.1f} ms  p99 {result.pct(0.99):6.1f} ms  "
                    f"1 client p50 {alone.pct(0.5):6.1f} ms{note}  errors {result.errors}"
                )
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    load_after = os.getloadavg()[0]

    rows = table(results, single, engine, args.clients)
    rows += ["", *ceiling(results, cpu, loads), "", startup]
    loads = (
        f"Load average {load_before:.1f} before, {load_after:.1f} after ({os.cpu_count()} cores)."
    )
    print("\n".join([*rows, "", loads, *findings(results, single, engine, args.clients)]))
    command = "python -m bench api" + (" " + " ".join(args.argv) if args.argv else "")
    lines = [
        f"Command: `{command}` (or `./dev bench api`). Server: `gunicorn memoryconsole.wsgi "
        f"--workers {args.workers}` (threaded workers, `gunicorn.conf.py`) on "
        f"loopback, the embedded PostgreSQL, all on one {os.cpu_count()}-core machine shared with "
        f"other engineers' work (load average {load_before:.1f} before, {load_after:.1f} after). "
        f"Workspace (built once, own database `{DB_NAME}`): {BOTS} bots x {OWN_FACTS:,} facts of "
        f"their own, user memory for {PERSONS} people (5 bots each, 40 facts a shard), "
        f"{PROJECTS} projects x {MEMBERS} member bots x 50 facts; every fact embedded beforehand. "
        f"Load: {args.clients} concurrent loopback clients (Python threads with http.client), "
        f"{args.seconds:g} s per endpoint per run, each request a random bot in its direct room "
        f"with its person and one project; every worker warmed on every bot first. Figures are "
        f"medians of {args.runs} runs. *p50 / health* compares with the trivial endpoint in the "
        f"same run; *1 client* is the same endpoint with no concurrency; *engine alone* calls "
        f"`recall_search` / `prompt_build` directly in the benchmark process (no HTTP, no token, "
        f"one caller), so the API's own share is the difference. Python "
        f"{platform.python_version()}.",
        "",
        *rows,
        "",
        *findings(results, single, engine, args.clients),
    ]
    print("\n".join(lines[:1]))
    return {"load": [load_before, load_after], "rows": rows}
