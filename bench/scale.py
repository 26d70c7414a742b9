"""A million facts: recall, the prompt, the console and a no-op sync as the workspace
around one bot grows.

    python -m bench scale [--sizes 100000,1000000] [--runs 3] [--samples 20] [--explain]
    python -m bench scale --build [--size 1000000] [--runs 2] [--hnsw-rows 50000]
                          [--reembed 300] [--with-index]

Each size is a workspace of its own (database `memstore_bench_scale_<size>`, files under
./var/bench/scale-<size>), measured in a child process of this run, one size after the other.
Per 100,000 facts: 10 bots × 7,000 own facts, 5 people × 2,000 (two bots' shards of 1,000) and 4
projects × 5,000 (three writing bots' shards), so 1,000,000 has 100 bots, 50 people and 40
projects. The benched bot `bot-000`, in a direct room with `person-00` and projects `proj-00` and
`proj-01` in play, reads 19,000 facts at every size (below recall's exact-scan limit,
`ANN_MIN_FACTS`): only the workspace around it grows. Its facts are `bench recall`'s texts, the
same at every size; the rest are the same templates with a place added, so every fact is
distinct. Sizes under 100,000 keep the counts and shrink every scope (for trying the bench).

Timed per size, one warm-up call first, then --samples calls per run over --runs runs: the
median of the per-run medians and of the per-run p95s, and the SQL statements of one call:
1. `recall_search` end to end, hybrid with a new question (query-vector cache cleared), and
   words only;
2. the prompt section (`prompt_answer`, what `GET /api/v1/prompt` calls);
3. the console's bot page (full page) and a search keystroke on it (htmx partial, `?q=`),
   through Django's test client as a logged-in staff person;
4. a no-op `index_sync` of the bot's readable scopes, and of every scope (`all_scopes`, as
   `manage.py recall_embed` and the forgotten-facts pass do).

The first run at a size writes the tree, rebuilds the index and stores composed vectors
(`vectors_composed`, timing only) with pgvector's HNSW index dropped, then recreates it; every
step is timed and kept in ./var/bench/scale-<size>/.complete, and later runs reuse all of it.
`--explain` prints EXPLAIN ANALYZE of the sync query, the lexical statement and the console's
statements. Progress goes to stderr, the tables to stdout.

`--build` measures instead how fast a workspace of `--size` facts is made (issue 25; in
bench/_million.py), each against a baseline from the same run: the rebuild from the files in
one process and on worker processes, alternately `--runs` times; pgvector's HNSW index over
`--hnsw-rows` of its vectors (a scratch copy), serial, with one parallel worker per core beyond
the first, and over half-precision copies, each with its recall@10 against an exact scan; and
`--reembed` facts embedded again by the backfill as it ran before and as it runs now (with
`--with-index` the workspace's own HNSW index is built first, timed, so the vectors go in
through it as on a real store). Written under "### A million facts rebuilt and vector-indexed".
With the defaults it should take about 3 minutes on a quiet 2-core box (a minute more the first
time, to make the workspace); the full figures are `--hnsw-rows 1000000 --with-index`.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import date

from bench._scale import ensure, hnsw_restore
from bench._scale_child import ROWS, child
from bench._workspace import REPO, log

# --- the run over every size -----------------------------------------------------------------


RUNS = 3


QUICK = {
    "runs": 1,
    "sizes": "10000",
    "samples": 3,
    "size": 10_000,
    "hnsw_rows": 2_000,
    "reembed": 20,
}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--sizes", default="100000,1000000", help="workspace sizes, in facts")
    parser.add_argument("--samples", type=int, default=20, help="calls per row and run")
    parser.add_argument("--explain", action="store_true", help="print the statements' plans")
    parser.add_argument(
        "--hnsw",
        choices=["first", "after"],
        default="first",
        help="recreate a dropped HNSW index before measuring, or after (figures sooner)",
    )
    parser.add_argument("--build", action="store_true", help="time making the workspace")
    parser.add_argument("--size", type=int, default=1_000_000, help="--build: facts")
    parser.add_argument("--hnsw-rows", type=int, default=50_000, help="--build: vectors")
    parser.add_argument("--reembed", type=int, default=300, help="--build: facts re-embedded")
    parser.add_argument(
        "--with-index", action="store_true", help="--build: the workspace's HNSW index first"
    )
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)


def run(args):
    if args.build:
        return build_main(args)
    if args.child:
        child(args.child, args.runs, args.samples, args.explain, args.hnsw == "first")
        return 0
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",")]
    results = {}
    for size in sizes:
        log(f"== {size:,} facts ==")
        started = time.perf_counter()
        command = [sys.executable, "-m", "bench", "scale", "--child", str(size)]
        command += ["--runs", str(args.runs), "--samples", str(args.samples)]
        command += ["--hnsw", args.hnsw] + (["--explain"] if args.explain else [])
        proc = subprocess.run(
            command,
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            stdout=subprocess.PIPE,
            text=True,
            check=True,
        )
        *plans, last = proc.stdout.strip().splitlines()
        if plans:
            print("\n".join(plans))
        results[size] = json.loads(last)
        log(f"== {size:,} facts: {time.perf_counter() - started:.0f} s in all ==")
    text = report(results, args.runs, args.samples)
    print(text)
    return 0


def _short(n: int) -> str:
    return f"{n // 1_000_000}M" if n % 1_000_000 == 0 else f"{n // 1000:,}k"


def _seconds(build: dict, key: str) -> str:
    return f"{build[key]:.1f}" if build.get(key) is not None else "—"


def report(results: dict, runs: int, samples: int) -> str:
    """The section's text: the timings per size, their ratio, and how each workspace was built."""
    sizes = sorted(results)
    low, high = sizes[0], sizes[-1]
    lines = [
        f"Command: `python -m bench scale --sizes {','.join(map(str, sizes))} --runs {runs} "
        f"--samples {samples}`, {date.today()}, on the shared 2-core box, each size in a fresh "
        f"process. Median of {runs} runs' medians over {samples} calls each (p95: median of the "
        "runs' p95s); in brackets, the SQL statements of one call. Targets: the "
        "console and the API within 2× of their 100,000-fact figures.",
        "",
    ]
    for size in sizes:
        r = results[size]
        hnsw = "present" if r["hnsw_present"] else "dropped (recreated after measuring)"
        lines.append(
            f"- {size:,} facts: {r['shape']}; the bot reads {r['searched']:,} facts in 4 scopes "
            f"({r['searched'] / r['facts']:.1%} of the workspace; vectors: {r['vector_path']}; "
            f"HNSW index {hnsw}); load average {r['load'][0]:.1f} before measuring, "
            f"{r['load'][1]:.1f} after."
        )
    head = " | ".join(f"{s:,} p50 / p95 ms" for s in sizes)
    ratio = f" {_short(high)} ÷ {_short(low)} p50 |" if high != low else ""
    lines += ["", f"| what | {head} |{ratio} target |"]
    lines.append("| --- |" + " ---: |" * (len(sizes) + bool(ratio)) + " --- |")
    for key, (label, kind) in ROWS.items():
        rows = [results[size]["rows"][key] for size in sizes]
        cells = " | ".join(f"{r['p50']:.1f} / {r['p95']:.1f} ({r['statements']})" for r in rows)
        factor = rows[-1]["p50"] / rows[0]["p50"]
        target = f"{kind}: ≤ 2×" if kind else ""
        if kind and ratio:
            target += " met" if factor <= 2 else " **missed**"
        lines.append(f"| {label} | {cells} |{f' {factor:.2f}× |' if ratio else ''} {target} |")
    lines += [
        "",
        "How each workspace was built (by the run that built it; later runs reuse it):",
        "",
        "| facts | files | built on | write the tree s | rebuild the index s "
        "| compose + COPY vectors s | HNSW index s |",
        "| ---: | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for size in sizes:
        b = results[size]["build"]
        lines.append(
            f"| {size:,} | {b['files']:,} | {b['date']} | {_seconds(b, 'write_s')} | "
            f"{_seconds(b, 'rebuild_s')} | {_seconds(b, 'vectors_s')} | {_seconds(b, 'hnsw_s')} |"
        )
    return "\n".join(lines) + "\n"


# --- how fast a workspace is made (--build) --------------------------------------------------


def build_main(args) -> int:
    """Build or reuse the workspace of --size facts, time its making, report and write."""
    from bench._million import hnsw_builds, rebuild_pairs, reembed_rates

    runs = 2 if args.runs == 3 else args.runs  # --runs' default is the other mode's
    ensure(args.size, hnsw_first=False)
    from memstore.index.rebuild_rows import workers_for  # Django is set up now

    workers = workers_for(1 << 40)  # what a large tree gets
    results = {"size": args.size, "runs": runs}
    results["rebuild"] = rebuild_pairs(runs, workers)
    results["hnsw"] = hnsw_builds(
        args.hnsw_rows, [("vector", 0), ("vector", workers), ("halfvec", workers)]
    )
    if args.with_index:
        results["index_s"] = hnsw_restore(args.size)
    results["reembed"] = reembed_rates(args.reembed, [1, 2], runs=runs)
    text = build_report(results, args)
    print(text)
    return 0


def _load(pair: list[float]) -> str:
    return f"{pair[0]:.1f} → {pair[1]:.1f}"


def build_report(r: dict, args) -> str:
    """The --build section: one table, baseline beside figure, with the ratio and the load."""
    rb, hn, re_ = r["rebuild"], r["hnsw"], r["reembed"]
    command = f"python -m bench scale --build --size {r['size']} --runs {r['runs']}"
    command += f" --hnsw-rows {args.hnsw_rows} --reembed {args.reembed}"
    command += " --with-index" if args.with_index else ""
    w = rb["workers"]
    lines = [
        f"Command: `{command}`, {date.today()}, on the shared 2-core box. Medians of "
        f"{r['runs']} runs, baseline and figure alternated in the same run; load average "
        "before → after each part.",
        "",
        "| what | baseline | figure | figure ÷ baseline | load |",
        "| --- | ---: | ---: | ---: | --- |",
        f"| rebuild {rb['facts']:,} facts from {rb['files']:,} files, s | one process "
        f"{rb['serial']:.1f} | {w} worker process{'es' if w > 1 else ''} {rb['parallel']:.1f} "
        f"| {rb['parallel'] / rb['serial']:.2f}× | {_load(rb['load'])} |",
        f"| the same to the rebuild's commit (the index usable), s | one process "
        f"{rb['serial_commit']:.1f} | {rb['parallel_commit']:.1f} "
        f"| {rb['parallel_commit'] / rb['serial_commit']:.2f}× | {_load(rb['load'])} |",
    ]
    serial = hn["builds"][0]
    for build in hn["builds"]:
        label = f"{build['variant']}, {build['workers']} parallel workers"
        recall = " / ".join(f"{build['recall'][ef]:.3f}" for ef in (40, 200))
        lines.append(
            f"| HNSW index over {hn['vectors']:,} vectors, s ({label}; {build['mb']:.0f} MB; "
            f"recall@{hn['k']} at ef_search 40 / 200: {recall}) | serial vector "
            f"{serial['seconds']:.1f} | {build['seconds']:.1f} | "
            f"{build['seconds'] / serial['seconds']:.2f}× | {_load(hn['load'])} |"
        )
    if r.get("index_s") is not None:
        lines.append(
            f"| the workspace's own HNSW index ({r['size']:,} vectors, vector, {w} parallel "
            f"worker{'s' if w > 1 else ''}), s | | {r['index_s']:.1f} | | |"
        )
    rates = re_["rates"]
    alone = rates["model alone, 1 thread"]
    where = "through the HNSW index" if re_["indexed"] else "no HNSW index"
    for name, rate in rates.items():
        if name.startswith("backfill now"):
            before = rates[name.replace("now", "before")]
            lines.append(
                f"| re-embedding {re_['facts']:,} facts into {re_['vectors']:,} vectors "
                f"({where}), facts/s ({name.removeprefix('backfill now, ')}) | before "
                f"{before:.0f} | {rate:.0f} | {rate / before:.2f}× | {_load(re_['load'])} |"
            )
    lines.append(
        f"| the model alone on the same texts, 1 thread, facts/s (the ceiling per core) | | "
        f"{alone:.0f} | | {_load(re_['load'])} |"
    )
    cpu = " ; ".join(
        f"{'one process' if n == '0' else n + ' workers'}: "
        + ", ".join(f"{k} {v:.1f} s" for k, v in parts.items())
        for n, parts in rb["cpu"].items()
    )
    wal = " ; ".join(
        f"{'one process' if n == '0' else n + ' workers'} {mb:.0f} MB"
        for n, mb in rb["wal"].items()
    )
    lines += [
        "",
        f"CPU of the last rebuild each way: {cpu}. WAL the server wrote meanwhile "
        f"(wal_level {rb['wal_level']}): {wal}.",
    ]
    return "\n".join(lines) + "\n"
