"""Hand edits of one big file: the re-sync's cost per line as the file grows (linear or not).

    python -m bench big_edit [--runs 3] [--sizes 10000,100000]

For each size N, in a throwaway database and MEMORY_ROOT, a bot holds three facts, synced, and
the fact table is analyzed at that size: the statistics a new install has when a big file is
dropped in (or the ones autovacuum takes while a big drop-in is still being written). Then,
each timed as one `index_sync` of the bot (wall time, and the CPU of this process and of its
Postgres backend):

1. drop-in: a log of N lines appears (every row inserted, the scope counts' trigger once);
2. shift: a line is written at the top of it (every row below moves: N positions updated);
3. one line: one line in the middle is edited (one row out, one in: the baseline).

The file is put back between runs. The table gives each step's median milliseconds, per 1,000
lines, and the largest size's cost per line over the smallest's ("growth": 1.0 is linear; a
step whose work grows with the square shows the ratio of the sizes). Before the scope counts
looked rows up identity by identity and positions were set by one statement, a shift of 20,000
lines took 87 s and a 100,000-line drop-in could run for an hour.
"""

import os
import time
from datetime import date

from bench._workspace import isolated_workspace, log
from bench.harness import Cpu, backend_pid, median

STEPS = ("drop-in", "shift", "one line")
RUNS = 3
QUICK = {"runs": 1, "sizes": "500,2000"}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument(
        "--sizes", default="10000,100000", help="lines in the big file, comma-separated"
    )


def _lines(n: int, first: int = 0) -> list[str]:
    return [
        f"- (2026-11-{1 + i % 28:02d}) Noted the {('budget', 'venue', 'launch', 'rota')[i % 4]}"
        f" review item {first + i}\n"
        for i in range(n)
    ]


def _one_size(root, n: int, runs: int) -> dict[str, list[tuple[float, float, float]]]:
    """Each step's (wall ms, process CPU ms, backend CPU ms) per run, for an N-line file."""
    from django.db import connection

    from memstore.facts.paths import Scope
    from memstore.index import index_sync
    from memstore.models import Fact

    scope = [Scope("bot", "big")]
    folder = root / "agents/big/memory/log"
    folder.mkdir(parents=True, exist_ok=True)
    small, big = folder / "2026-10.md", folder / "2026-11.md"
    small.write_text("".join(_lines(3, first=10**7)))
    index_sync(scopes=scope)
    pid = backend_pid()
    body = _lines(n)
    edited = body[: n // 2] + [body[n // 2].replace("review", "edited review")] + body[n // 2 + 1 :]
    versions = {
        "drop-in": body,
        "shift": ["- (2026-11-01) A line written at the top by hand\n", *body],
        "one line": edited,
    }
    out: dict[str, list[tuple[float, float, float]]] = {step: [] for step in STEPS}
    for run in range(runs):
        big.unlink(missing_ok=True)
        index_sync(scopes=scope)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE memstore_fact")
        for step in STEPS:
            previous = body if step == "one line" else None
            if previous is not None:  # the edit is of the file as dropped in
                big.write_text("# Memory log\n\n" + "".join(previous))
                index_sync(scopes=scope)
            big.write_text("# Memory log\n\n" + "".join(versions[step]))
            cpu, start = Cpu.now(pid), time.perf_counter()
            report = index_sync(scopes=scope)
            wall = (time.perf_counter() - start) * 1000
            own, backend = Cpu.now(pid) - cpu
            held = Fact.objects.filter(scope_key="bot:big").count()
            assert report.changed >= 1 and held == 3 + len(versions[step]), (report, held)
            out[step].append((wall, own, backend or 0.0))
        log(
            f"{n:,} lines, run {run + 1}: "
            + ", ".join(f"{s} {out[s][-1][0]:.0f} ms" for s in STEPS)
        )
    return out


def run(args):
    sizes = [int(size) for size in str(args.sizes).split(",")]
    before = os.getloadavg()
    results: dict[int, dict[str, list[tuple[float, float, float]]]] = {}
    for n in sizes:
        with isolated_workspace("memstore_bench_big_edit") as root:
            results[n] = _one_size(root, n, args.runs)
    after = os.getloadavg()
    rows, figures = [], {}
    for n in sizes:
        for step in STEPS:
            wall = median(w for w, _, _ in results[n][step])
            cpu = median(own + backend for _, own, backend in results[n][step])
            figures[(n, step)] = wall
            rows.append(f"| {n:,} | {step} | {wall:,.0f} | {wall / n * 1000:,.1f} | {cpu:,.0f} |")
    low, high = min(sizes), max(sizes)
    growth = [
        f"{step}: {figures[(high, step)] / high / (figures[(low, step)] / low):.2f}"
        for step in STEPS
        if low != high
    ]
    table = f"""Command: `python -m bench big_edit --runs {args.runs} --sizes {args.sizes}`
({date.today()}; load average {before[0]:.2f} before, {after[0]:.2f} after). One `index_sync`
of a bot whose log file has N lines, after statistics taken at three facts; median of
{args.runs} runs. CPU: this process plus its Postgres backend.

| lines | step | ms | ms per 1,000 lines | CPU ms |
| ---: | --- | ---: | ---: | ---: |
{chr(10).join(rows)}

Cost per line at {high:,} over {low:,} lines (1.0 = linear): {"; ".join(growth)}."""
    print(table)
    return {"sizes": sizes, "ms": {f"{n} {s}": v for (n, s), v in figures.items()}}
