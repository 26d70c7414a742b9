"""The prompt right after a write to a 7,000-fact scope, against a warm prompt with no write.

    python -m bench prompt_write [--runs 5] [--writes 60] [--facts 7000]

In a throwaway database and MEMORY_ROOT, a bot with `--facts` facts of its own (a tenth in its
profile, the rest in six monthly logs, this month's among them) prompts in a group room
(`prompt_build` in process: the sync's stat check, the versions, the rule, the blocks, the
section). Each round, alternating: a warm prompt (nothing changed: every block cached, the
baseline), then a remember, an edit and a forget of one fact of this month's log, each followed
by a prompt, timed alone (the write is not timed). Reports the p50 of each kind (median of the
runs' medians), its ratio to the warm prompt of the same run, the CPU it took in this process
and in its database backend (read from /proc when the database is local), and the load
average.
"""

import os
import statistics
import time
from datetime import date, timedelta

from bench._workspace import isolated_workspace, log
from bench.harness import median

KINDS = ("warm", "remember", "edit", "forget")
LABELS = {
    "warm": "warm, no write (baseline)",
    "remember": "right after a remember",
    "edit": "right after an edit",
    "forget": "right after a forget",
}


def _setup(root, facts: int) -> None:
    from django.utils import timezone

    from memstore.facts.paths import Scope

    shard = Scope("bot", "ava").shard("ava")
    folder = root / shard.rel
    (folder / "log").mkdir(parents=True)
    this_month = timezone.localdate().replace(day=1)
    months = [this_month]
    for _ in range(5):
        months.append((months[-1] - timedelta(days=1)).replace(day=1))
    profile = facts // 10
    (folder / "profile.md").write_text(
        "# Profile\n\n"
        + "".join(f"- (2026-01-{1 + i % 28:02d}) Standing fact {i}\n" for i in range(profile))
    )
    per_month = (facts - profile) // len(months)
    for n, month in enumerate(months):
        lines = [
            f"- ({month + timedelta(days=i % 28)}) Event {n}-{i} about the budget review\n"
            for i in range(per_month)
        ]
        (folder / "log" / f"{month:%Y-%m}.md").write_text("# Memory log\n\n" + "".join(lines))


_BACKEND: list[str] = []  # the /proc schedstat of this process's Postgres backend, if local


def _backend_cpu() -> float:
    """Milliseconds the database backend has spent on a CPU so far (0 when it is not local):
    with the process's own CPU, what a prompt costs whatever the box's load."""
    if not _BACKEND:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            _BACKEND.append(f"/proc/{cursor.fetchone()[0]}/schedstat")
    try:
        with open(_BACKEND[0]) as stat:
            return int(stat.read().split()[0]) / 1e6
    except OSError:
        return 0.0


def _round(ctx, shard, tag: str) -> dict[str, tuple[float, float, float]]:
    from memstore.facts.markdown import fact_identity
    from memstore.prompt.section import prompt_build
    from memstore.store.services import fact_edit, fact_forget, fact_remember

    def timed() -> tuple[float, float, float]:
        backend, cpu, start = _backend_cpu(), time.process_time(), time.perf_counter()
        prompt_build(ctx=ctx)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        return wall * 1000, cpu * 1000, _backend_cpu() - backend

    times = {"warm": timed()}
    text = f"Booked venue {tag} for the offsite"
    fact_remember(shard=shard, text=text, by="ava", via="api")
    times["remember"] = timed()
    edited = f"Booked venue {tag} for the offsite in Lisbon"
    fact_edit(shard=shard, fact_id=fact_identity(text), text=edited, by="ava", via="api")
    times["edit"] = timed()
    fact_forget(shards=[shard], fact_id=fact_identity(edited), by="ava", via="api")
    times["forget"] = timed()
    return times


RUNS = 5


QUICK = {"runs": 1, "writes": 5, "facts": 500}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--writes", type=int, default=60, help="rounds per run")
    parser.add_argument("--facts", type=int, default=7000)


def run(args):
    medians: dict[str, list[float]] = {kind: [] for kind in KINDS}
    ratios: dict[str, list[float]] = {kind: [] for kind in KINDS}
    cpus: dict[str, list[float]] = {kind: [] for kind in KINDS}  # process + backend, per run
    load = [f"{value:.2f}" for value in os.getloadavg()]
    with isolated_workspace("memstore_bench_prompt_write") as root:
        from memstore.facts.paths import Scope
        from memstore.index import index_rebuild
        from memstore.prompt.cache import prompt_cache_clear
        from memstore.rooms.access import Context, Room

        _setup(root, args.facts)
        index_rebuild()
        ctx = Context(bot="ava", room=Room("team", "group"))
        shard = Scope("bot", "ava").shard("ava")
        for run in range(args.runs):
            prompt_cache_clear()
            _round(ctx, shard, f"warmup-{run}")  # loaded once, then its state at the first write
            samples: dict[str, list[float]] = {kind: [] for kind in KINDS}
            cpu: dict[str, list[float]] = {kind: [] for kind in KINDS}
            for i in range(args.writes):
                for kind, (ms, own, backend) in _round(ctx, shard, f"{run}-{i}").items():
                    samples[kind].append(ms)
                    cpu[kind].append(own + backend)
            for kind in KINDS:
                medians[kind].append(median(samples[kind]))
                ratios[kind].append(medians[kind][-1] / medians["warm"][-1])
                cpus[kind].append(statistics.mean(cpu[kind]))
            log(
                f"run {run + 1}: "
                + ", ".join(f"{kind} {medians[kind][-1]:.2f} ms" for kind in KINDS)
            )
    load_after = [f"{value:.2f}" for value in os.getloadavg()]
    rows = [
        f"| {LABELS[kind]} "
        f"| {median(medians[kind]):.2f} | {median(ratios[kind]):.2f}× "
        f"| {median(cpus[kind]):.2f} |"
        for kind in KINDS
    ]
    body = f"""Command: `python -m bench prompt_write --runs {args.runs} --writes {args.writes} --facts {args.facts}`
({date.today()}; load average {" / ".join(load)} before, {" / ".join(load_after)} after).
`prompt_build` in process for a bot whose own scope holds {args.facts:,} facts (a tenth in its
profile, the rest in six monthly logs), in a group room; each round a warm prompt (nothing
changed), then a remember, an edit and a forget in this month's log, each followed by a timed
prompt (the write itself is not timed). p50 per run, median of {args.runs} runs; the ratio is to
the warm prompt of the same run. CPU: the bench process's own CPU time plus its Postgres
backend's (`/proc/<pid>/schedstat`), mean per prompt, median of the runs: what a prompt costs
whatever else the box runs.

| prompt | p50 ms | ratio to warm | CPU ms |
| --- | ---: | ---: | ---: |
{chr(10).join(rows)}"""
    print(body)
