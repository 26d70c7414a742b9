"""What workspace knowledge (scope server, seed 003) costs the prompt: `prompt_build` for a bot
with 1,000 facts of its own and a person's memory, with the workspace empty (the baseline, the
same run) and with N weighted workspace records, warm (blocks cached, the common case: nothing
changed since the last prompt) and cold (the block cache cleared before each build).

    python -m bench workspace [--runs 3] [--builds 200] [--records 200]

Runs in a throwaway database and memory folder; reports per-build medians (median of the runs'
medians) and the ratio to the baseline, with the load average.
"""

import os
import time
from datetime import date, timedelta

from bench._workspace import isolated_workspace, log
from bench.harness import median


def _setup(root, records: int) -> None:
    from memstore.facts.paths import Scope
    from memstore.rooms.access import WORKSPACE
    from memstore.store.services import fact_remember

    start = date(2026, 1, 1)
    own = Scope("bot", "ava").shard("ava")
    lines = [
        f"- ({start + timedelta(days=i % 300)}) Ava fact {i} about budgets" for i in range(1000)
    ]
    (root / own.rel / "log").mkdir(parents=True)
    (root / own.rel / "profile.md").write_text("# Profile\n\n" + "\n".join(lines[:100]) + "\n")
    (root / own.rel / "log/2026-06.md").write_text(
        "# Memory log\n\n" + "\n".join(lines[100:]) + "\n"
    )
    user = Scope("user", "alice").shard("ava")
    (root / user.rel).mkdir(parents=True)
    (root / user.rel / "profile.md").write_text(
        "# Profile\n\n" + "\n".join(f"- (2026-03-0{1 + i % 9}) Alice likes {i}" for i in range(60))
    )
    for i in range(records):
        fact_remember(
            shard=WORKSPACE.shard("crm"),
            text=f"Account {i:04d} renews in month {1 + i % 12}",
            tier="profile",
            meta={"weight": 1 + i % 5, "visibility": "context" if i % 4 else "searchable"},
            by="crm",
            via="api",
        )


def _builds(ctx, n: int, *, cold: bool) -> float:
    from memstore.prompt.cache import prompt_cache_clear
    from memstore.prompt.section import prompt_build

    samples = []
    prompt_build(ctx=ctx)  # synced and warmed once
    for _ in range(n):
        if cold:
            prompt_cache_clear()
        t0 = time.perf_counter()
        prompt_build(ctx=ctx)
        samples.append((time.perf_counter() - t0) * 1000)
    return median(samples)


RUNS = 3


QUICK = {"runs": 1, "builds": 10, "records": 20}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--builds", type=int, default=200)
    parser.add_argument("--records", type=int, default=200)


def run(args):
    results: dict[tuple[str, str], list[float]] = {}
    load = os.getloadavg()
    for run in range(args.runs):
        for records in (0, args.records):
            with isolated_workspace(f"memstore_bench_workspace_{run}_{records}") as root:
                from memstore.rooms.context import context_open

                _setup(root, records)
                ctx = context_open(
                    bot="ava", room_id="dm-alice", room_kind="direct", person="alice"
                )
                for mode in ("warm", "cold"):
                    ms = _builds(ctx, args.builds, cold=mode == "cold")
                    key = ("empty" if not records else f"{records} records", mode)
                    results.setdefault(key, []).append(ms)
                    log(f"run {run + 1}: workspace {key[0]}, {mode}: {ms:.2f} ms")
    load_after = os.getloadavg()
    rows = []
    for mode in ("warm", "cold"):
        base = median(results[("empty", mode)])
        full = median(results[(f"{args.records} records", mode)])
        rows.append(f"| {mode} | {base:.2f} ms | {full:.2f} ms | {full / base:.2f}× |")
    body = f"""Command: `python -m bench workspace --runs {args.runs} --builds {args.builds} --records {args.records}`.
`prompt_build` in process for a bot with 1,000 facts of its own and 60 about the person (direct
room), median per build over {args.builds} builds, median of {args.runs} runs; the baseline (workspace
empty) is measured in the same run. With records, the workspace holds {args.records} of them
(weights 1–5, three in four `context`). Load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}
before, {load_after[0]:.1f} after (2 cores, other engineers' test runs going on).

| blocks | workspace empty (baseline) | workspace with {args.records} records | ratio |
| --- | --- | --- | --- |
{chr(10).join(rows)}

Warm is every prompt after the first while nothing changed (blocks are cached by scope version);
cold loads every block again. An empty workspace adds no block load (its scope has no files,
so no statement runs for it)."""
    print(body)
