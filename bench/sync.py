"""The foundation's index benchmarks: sync before read, and a full rebuild.

    python -m bench sync [--runs 30] [--files 10000] [--facts 1000000] [--skip-rebuild]

1. no-op sync: one bot's scope set (own memory, a person's memory in 2 shards, 3 projects in
   2 shards each) of 200 files / 20,000 facts, nothing changed; median over --runs, next to
   200 bare os.stat calls on the same files measured in the same loop.    target <= 2 ms
2. one changed file: a 1,000-line log with one line edited by hand, re-synced (stat, query,
   parse, diff, one row out and one in, a history entry); median over --runs.  target <= 30 ms
3. full rebuild of --facts facts in --files files, in a fresh process: seconds and that
   process's peak RSS, plus the Postgres backend's peak RSS.    target <= 60 s and <= 1 GiB

Runs against its own database `memstore_bench` on the same server (DATABASE_URL, or the
embedded Postgres under ./var) and its own MEMORY_ROOT under ./var/bench, so the dev index is
untouched. Progress goes to stderr; the results table to stdout.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

from bench._workspace import REPO, VAR, bench_database, django_start, log
from bench.harness import median

BENCH_DB = "memstore_bench"
WORDS = [
    "tea",
    "coffee",
    "Lisbon",
    "mornings",
    "rooftop",
    "budget",
    "Friday",
    "launch",
    "dark",
    "mode",
    "reports",
    "weekly",
    "decisions",
    "blockers",
    "offsite",
    "venue",
    "flight",
    "hotel",
    "invoice",
    "design",
    "review",
    "deploy",
    "staging",
    "release",
    "notes",
    "customer",
    "Alice",
    "Bob",
    "Carol",
    "project",
    "Apollo",
    "Zephyr",
    "migration",
    "database",
    "index",
    "search",
    "prompt",
    "memory",
    "learning",
    "schedule",
    "standup",
    "retro",
    "roadmap",
    "quarter",
    "goals",
    "hiring",
    "onboarding",
    "docs",
]
OLD_NS = 1_600_000_000_000_000_000  # files older than RACY_NS, as memory files usually are


# --- setup ---------------------------------------------------------------------------------


def fact_lines(rng: random.Random, n: int, month: date, start: int) -> str:
    """n fact lines dated inside `month`, each unique (a counter) with a few words of text."""
    words = WORDS
    out = []
    for i in range(n):
        day = month + timedelta(days=i % 28)
        text = " ".join(rng.choices(words, k=4 + i % 7))
        tag = "[note] " if i % 10 == 3 else "[episode] " if i % 10 == 7 else ""
        out.append(f"- ({day.isoformat()}) {tag}{text} #{start + i}\n")
    return "".join(out)


def write_shard(root: Path, rel: str, files: int, facts_per_file: int, rng, counter: int) -> int:
    """A shard folder with a profile and files-1 monthly logs; returns the next counter."""
    base = root / rel
    (base / "log").mkdir(parents=True, exist_ok=True)
    header = "# Memory\n\n<!-- written by bench/sync.py -->\n\n"
    (base / "profile.md").write_text(
        header + fact_lines(rng, facts_per_file, date(2024, 1, 1), counter)
    )
    counter += facts_per_file
    year, month = 2026, 12
    for _ in range(files - 1):
        text = header + fact_lines(rng, facts_per_file, date(year, month, 1), counter)
        (base / "log" / f"{year:04d}-{month:02d}.md").write_text(text)
        counter += facts_per_file
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return counter


def age(root: Path) -> list[Path]:
    paths = [p for p in root.rglob("*.md")]
    for path in paths:
        os.utime(path, ns=(OLD_NS, OLD_NS))
    return paths


# --- 1 and 2: sync -------------------------------------------------------------------------


def bench_sync(root: Path, runs: int) -> dict:
    from memstore.facts.paths import Scope
    from memstore.index import index_rebuild, index_sync
    from memstore.index.rows import stat_scope

    rng = random.Random(1)
    layout = [
        ("agents/ada/memory", 50),
        ("users/alice/memory/by-agent/ada", 25),
        ("users/alice/memory/by-agent/bob", 25),
    ]
    for project, sizes in (("apollo", (17, 17)), ("zephyr", (17, 17)), ("hermes", (16, 16))):
        for bot, files in zip(("ada", "bob"), sizes, strict=True):
            layout.append((f"projects/{project}/memory/by-agent/{bot}", files))
    counter = 0
    for rel, files in layout:
        counter = write_shard(root, rel, files, 100, rng, counter)
    paths = [str(p) for p in age(root)]
    scopes = [
        Scope("bot", "ada"),
        Scope("user", "alice"),
        Scope("project", "apollo"),
        Scope("project", "zephyr"),
        Scope("project", "hermes"),
    ]
    index_rebuild()
    report = index_sync(scopes=scopes)
    assert (len(paths), 0) == (report.files, report.changed), report
    log(f"no-op sync: {len(paths)} files, {counter:,} facts; {runs} runs")
    syncs, stats, walks = [], [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        for path in paths:
            os.stat(path)
        t1 = time.perf_counter()
        report = index_sync(scopes=scopes)
        t2 = time.perf_counter()
        found: dict = {}
        for scope in scopes:
            stat_scope(str(root), root, scope, found)
        t3 = time.perf_counter()
        assert report.changed == 0
        stats.append(t1 - t0)
        syncs.append(t2 - t1)
        walks.append(t3 - t2)

    big = "agents/big/memory/log/2026-03.md"
    (root / big).parent.mkdir(parents=True)
    (root / big).write_text("# Memory log\n\n" + fact_lines(rng, 1000, date(2026, 3, 1), counter))
    age(root)
    big_scope = [Scope("bot", "big")]
    index_sync(scopes=big_scope)
    log(f"one changed file: {big}, 1,000 lines, one edited by hand per run; {runs} runs")
    from memstore.facts.markdown import parse_text

    changed, parses = [], []
    for i in range(runs):
        path = root / big
        lines = path.read_text().splitlines(keepends=True)
        row = 2 + rng.randrange(1000)
        lines[row] = lines[row].replace("#", f"edited {i} #", 1)
        path.write_text("".join(lines))
        t0 = time.perf_counter()
        report = index_sync(scopes=big_scope)
        t1 = time.perf_counter()
        parse_text(path.read_text())
        t2 = time.perf_counter()
        assert report.changed == 1
        changed.append(t1 - t0)
        parses.append(t2 - t1)
    return {
        "noop_files": len(paths),
        "noop_facts": counter,
        "noop_sync_ms": (median(syncs) * 1000),
        "noop_stat_ms": (median(stats) * 1000),
        "noop_walk_ms": (median(walks) * 1000),
        "changed_sync_ms": (median(changed) * 1000),
        "changed_parse_ms": (median(parses) * 1000),
        "runs": runs,
    }


# --- 3: rebuild ----------------------------------------------------------------------------


def generate(root: Path, files: int, facts: int) -> None:
    """`files` memory files holding `facts` facts in all, spread over bots, people, projects."""
    rng = random.Random(3)
    per_shard = 50
    shards = []
    n = 0
    while len(shards) * per_shard < files:
        kind = n % 3
        if kind == 0:
            shards.append(f"agents/bot{n:04d}/memory")
        elif kind == 1:
            shards.append(f"users/person{n % 97:03d}/memory/by-agent/bot{n:04d}")
        else:
            shards.append(f"projects/project{n % 31:03d}/memory/by-agent/bot{n:04d}")
        n += 1
    per_file, extra = divmod(facts, files)
    from memstore.management.progress import ProgressBar

    bar = ProgressBar(unit="files")
    made = counter = 0
    for rel in shards:
        take = min(per_shard, files - made)
        sizes = [per_file + (1 if made + i < extra else 0) for i in range(take)]
        base = root / rel
        (base / "log").mkdir(parents=True, exist_ok=True)
        year, month = 2026, 12
        for i, size in enumerate(sizes):
            text = "# Memory\n\n" + fact_lines(rng, size, date(year, month, 1), counter)
            counter += size
            if i == 0:
                (base / "profile.md").write_text(text)
                continue
            (base / "log" / f"{year:04d}-{month:02d}.md").write_text(text)
            year, month = (year, month - 1) if month > 1 else (year - 1, 12)
        made += take
        bar.update(made, files)
    bar.finish()
    age(root)


def rebuild_child(root: Path) -> None:
    """Run in a fresh process: rebuild, then print seconds and peak RSS (ours and the server's)."""
    import resource

    django_start(root)
    from django.db import connection

    from memstore.index import index_rebuild
    from memstore.management.progress import ProgressBar

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    bar = ProgressBar(unit="files")
    phases: dict[str, float] = {}
    t0 = time.perf_counter()

    def phase(name: str) -> None:
        phases[name] = time.perf_counter() - t0
        if name == "indexing":
            bar.note("building indexes…")

    report = index_rebuild(progress=bar.update, on_phase=phase)
    seconds = time.perf_counter() - t0
    bar.finish()
    result = {
        "files": report.files,
        "facts": report.facts,
        "seconds": seconds,
        "load_seconds": phases.get("indexing", seconds) - phases.get("reading", 0.0),
        "index_seconds": seconds - phases.get("indexing", seconds),
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "server_peak_rss_mib": _peak_rss_mib(backend),
    }
    print(json.dumps(result))


def _peak_rss_mib(pid: int) -> float | None:
    # VmHWM: the backend's peak resident set (includes the shared buffers it touched).
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def bench_rebuild(root: Path, files: int, facts: int) -> dict:
    log(f"generating {facts:,} facts in {files:,} files under {root}")
    t0 = time.perf_counter()
    generate(root, files, facts)
    log(f"generated in {time.perf_counter() - t0:.1f} s; rebuilding in a fresh process")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "sync", "--rebuild-child", str(root)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --- main ----------------------------------------------------------------------------------


QUICK = {
    "runs": 20,
    "files": 100,
    "facts": 10_000,
}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--runs", type=int, default=30, help="runs per sync median (>= 20)")
    parser.add_argument("--files", type=int, default=10_000, help="files for the rebuild")
    parser.add_argument("--facts", type=int, default=1_000_000, help="facts for the rebuild")
    parser.add_argument("--skip-rebuild", action="store_true")
    parser.add_argument("--skip-sync", action="store_true")
    parser.add_argument("--rebuild-child", type=Path, help=argparse.SUPPRESS)


def run(args):
    if args.rebuild_child:
        rebuild_child(args.rebuild_child)
        return
    bench_database(BENCH_DB)
    work = VAR / "bench"
    shutil.rmtree(work, ignore_errors=True)
    sync_root, rebuild_root = work / "sync", work / "rebuild"
    sync_root.mkdir(parents=True)
    rebuild_root.mkdir(parents=True)
    django_start(sync_root)
    results: dict = {"cpus": os.cpu_count()}
    if not args.skip_sync:
        results |= bench_sync(sync_root, args.runs)
    if not args.skip_rebuild:
        results["rebuild"] = bench_rebuild(rebuild_root, args.files, args.facts)
    shutil.rmtree(work, ignore_errors=True)
    report(results)


def report(r: dict) -> None:
    print(f"machine: {r['cpus']} CPUs")
    if "noop_sync_ms" in r:
        ratio = r["noop_sync_ms"] / r["noop_stat_ms"]
        print(
            f"no-op sync, {r['noop_files']} files / {r['noop_facts']:,} facts: "
            f"median {r['noop_sync_ms']:.2f} ms (target <= 2 ms) | {r['noop_files']} bare "
            f"os.stat: {r['noop_stat_ms']:.2f} ms | ratio {ratio:.1f}x | directory walk + "
            f"stats alone: {r['noop_walk_ms']:.2f} ms | {r['runs']} runs"
        )
        print(
            f"one changed 1,000-line file: median {r['changed_sync_ms']:.2f} ms (target <= 30 ms)"
            f" | parsing that file alone: {r['changed_parse_ms']:.2f} ms | {r['runs']} runs"
        )
    if "rebuild" in r:
        b = r["rebuild"]
        server = b["server_peak_rss_mib"]
        print(
            f"rebuild, {b['facts']:,} facts in {b['files']:,} files: {b['seconds']:.1f} s "
            f"(target <= 60 s; load {b['load_seconds']:.1f} s + indexes {b['index_seconds']:.1f} s)"
            f" | peak RSS {b['peak_rss_mib']:.0f} MiB (target <= 1024)"
            + (f" | Postgres backend peak RSS {server:.0f} MiB" if server else "")
        )
