"""Saves in a large scope: remember, edit and forget with 10,000 facts in the bot's memory.

    python -m bench saves [--facts 10000] [--files 10] [--rounds 60] [--runs 3]

In a throwaway database and MEMORY_ROOT: one bot whose own memory holds `--facts` facts in
`--files` monthly logs, this month's among them (so a save lands in a file of facts/files
lines). Each round remembers a new fact, edits it, forgets it, and, as the baseline in the same
loop, replaces this month's file the way every write does (`write_atomic`: temp file, fsync,
rename, fsync of the folder) with no parsing and no index. `--runs` runs of `--rounds` rounds
each; the table gives the median over the runs of each step's p50 (and p95), the baseline's the
same way, their ratio, and the statements each step sends to Postgres (counted once, apart from
the timed rounds, with BEGIN and COMMIT), with the load average before and after. The defaults
take well under a minute on a quiet 2-core box. Progress on stderr.
"""

import os
import time

from bench._workspace import isolated_workspace, log
from bench.harness import median, p95

STEPS = ("remember", "edit", "forget", "baseline")


RUNS = 3


QUICK = {
    "runs": 1,
    "facts": 1_000,
    "files": 2,
    "rounds": 5,
}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=60)


def run(args):

    with isolated_workspace("bench_saves") as root:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext
        from django.utils import timezone

        from memstore.facts.files import read_snapshot, write_atomic
        from memstore.facts.paths import Scope
        from memstore.index import index_sync
        from memstore.registry.bots import bot_create
        from memstore.store.services import fact_edit, fact_forget, fact_remember

        bot_create(slug="ada")
        scope = Scope("bot", "ada")
        shard = scope.shard("ada")
        today = timezone.localdate()
        per_file = args.facts // args.files
        log_dir = root / shard.rel / "log"
        log_dir.mkdir(parents=True)
        year, month = today.year, today.month
        for n in range(args.files):
            day = f"{year:04d}-{month:02d}-01"
            lines = [
                f"- ({day}) Fact {n}-{i} about topic {i * 7 % 113} and item {i}"
                for i in range(per_file)
            ]
            (log_dir / f"{year:04d}-{month:02d}.md").write_text(
                "# Memory\n\n" + "\n".join(lines) + "\n"
            )
            year, month = (year, month - 1) if month > 1 else (year - 1, 12)
        started = time.perf_counter()
        index_sync(scopes=[scope])
        log(
            f"indexed {args.facts} facts in {args.files} files: {time.perf_counter() - started:.1f} s"
        )
        this_month = log_dir / f"{today.year:04d}-{today.month:02d}.md"

        def step(name: str, i: int, state: dict) -> None:
            if name == "remember":
                state["saved"] = fact_remember(
                    shard=shard, text=f"Booked venue {i} for the offsite"
                )
            elif name == "edit":
                state["edited"] = fact_edit(
                    shard=shard, fact_id=state["saved"].fact_id, text=f"Booked hall {i} for it"
                )
            elif name == "forget":
                fact_forget(shards=[shard], fact_id=state["edited"].fact_id)
            else:
                snapshot = read_snapshot(this_month)
                write_atomic(this_month, snapshot.text, expected=snapshot.signature)

        for i in range(5):  # warm: the first save of a process parses its file
            fact_remember(shard=shard, text=f"Warm-up fact {i}")
        statements: dict[str, int] = {}
        state: dict = {}
        for name in STEPS:
            with CaptureQueriesContext(connection) as queries:
                step(name, -1, state)
            statements[name] = len(queries)
        p50s: dict[str, list[float]] = {name: [] for name in STEPS}
        p95s: dict[str, list[float]] = {name: [] for name in STEPS}
        load_before = os.getloadavg()
        for run in range(args.runs):
            times: dict[str, list[float]] = {name: [] for name in STEPS}
            for i in range(args.rounds):
                for name in STEPS:
                    t = time.perf_counter()
                    step(name, run * args.rounds + i, state)
                    times[name].append((time.perf_counter() - t) * 1000)
            for name, ms in times.items():
                p50s[name].append(median(ms))
                p95s[name].append(p95(ms))
            log(f"run {run + 1}/{args.runs}: " + ", ".join(f"{n} {p50s[n][-1]:.1f}" for n in STEPS))
        load_after = os.getloadavg()
        base = median(p50s["baseline"])
        print(
            f"{args.facts} facts in {args.files} files, {args.runs} runs of {args.rounds} rounds; "
            f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after"
        )
        print("| step | p50 ms | p95 ms | baseline p50 ms | ÷ baseline | statements | load |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
        for name in STEPS:
            p50 = median(p50s[name])
            tail = median(p95s[name])
            print(
                f"| {name} | {p50:.1f} | {tail:.1f} | {base:.1f} | {p50 / base:.2f}× "
                f"| {statements[name]} | {load_before[0]:.1f} → {load_after[0]:.1f} |"
            )
    return 0
