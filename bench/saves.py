"""Saves in a large scope: remember, edit and forget with 10,000 facts in the bot's memory.

    python -m bench saves [--facts 10000] [--files 10] [--rounds 60]

In a throwaway database and MEMORY_ROOT: one bot whose own memory holds `--facts` facts in
`--files` monthly logs, this month's among them (so a save lands in a file of facts/files
lines). Each round remembers a new fact, edits it, forgets it, and, as the baseline in the same
loop, replaces this month's file the way every write does (`write_atomic`: temp file, fsync,
rename, fsync of the folder) with no parsing and no index. Prints medians and the ratio of each
to the baseline, with the load average before and after. Progress on stderr.
"""

import argparse
import os
import statistics
import time

from bench._workspace import isolated_workspace, log


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench saves")
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args(argv)

    with isolated_workspace("bench_saves") as root:
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
        for i in range(5):  # warm: the first save of a process parses its file
            fact_remember(shard=shard, text=f"Warm-up fact {i}")
        times: dict[str, list[float]] = {"remember": [], "edit": [], "forget": [], "baseline": []}
        load_before = os.getloadavg()
        for i in range(args.rounds):
            t = time.perf_counter()
            saved = fact_remember(shard=shard, text=f"Booked venue {i} for the offsite")
            times["remember"].append(time.perf_counter() - t)
            t = time.perf_counter()
            edited = fact_edit(shard=shard, fact_id=saved.fact_id, text=f"Booked hall {i} for it")
            times["edit"].append(time.perf_counter() - t)
            t = time.perf_counter()
            fact_forget(shards=[shard], fact_id=edited.fact_id)
            times["forget"].append(time.perf_counter() - t)
            t = time.perf_counter()
            snapshot = read_snapshot(this_month)
            write_atomic(this_month, snapshot.text, expected=snapshot.signature)
            times["baseline"].append(time.perf_counter() - t)
        load_after = os.getloadavg()
        base = statistics.median(times["baseline"])
        print(
            f"{args.facts} facts in {args.files} files, {args.rounds} rounds; load average "
            f"{load_before[0]:.1f} before, {load_after[0]:.1f} after"
        )
        print("| step | p50 ms | p95 ms | ÷ baseline |")
        print("| --- | ---: | ---: | ---: |")
        for name, samples in times.items():
            ms = sorted(s * 1000 for s in samples)
            p50 = statistics.median(ms)
            p95 = statistics.quantiles(ms, n=20)[18]
            print(f"| {name} | {p50:.1f} | {p95:.1f} | {p50 / (base * 1000):.2f}× |")
    return 0
