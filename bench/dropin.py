"""Drop-in: thousands of hand-written facts land in a bot's files at once.

    python -m bench dropin [--sizes 5000,50000] [--runs 3] [--samples 5]

Each run is a child process with its own database (`memstore_dropin`, dropped and recreated)
and MEMORY_ROOT, and a real worker (`manage.py procrastinate worker --queues embeddings`,
started before the drop-in, as in production):

1. bot `ada` holds the 353 LoCoMo dev facts (../shared/bench/locomo-dev), indexed and embedded;
   the prompt, a recall and a console search of the bot's page are timed on this unchanged
   store (`--samples` each, medians: the "before" column; recall and console questions come
   from the LoCoMo queries, a new one every time);
2. N hand-written facts are dropped into ada's monthly logs: LoCoMo facts retold about other
   people, the upkeep bench's sentences, recall's template facts and free diary sentences, so
   the words vary (no single template);
3. the first prompt, recall and console search after the drop-in, each timed once (the
   "first after" column), and whether each kept the facts indexed before;
4. until every fact is searchable by meaning, a recall every 2 s (median and worst: the
   "during catch-up" column); the time until the words of every new fact are indexed (the
   background sync), until every fact is searchable by a tier of meaning (its static vector, the
   worker's first step, or its full one) and until every fact has its full vector.

`--static-only` stops a run once every fact is searchable by the static tier (large sizes: the
full model's catch-up is then extrapolated from its measured rate, not waited for). The static
tier's table must be cached (`manage.py recall_static`); its distillation is not timed here.

The figures are medians over --runs; the load average is printed beside them (the box is shared).
"""

import argparse
import itertools
import json
import os
import random
import subprocess
import sys
import time

from bench._dropin_facts import base_store, drop_in, hand_written, locomo_questions
from bench._workspace import REPO, VAR, bench_database, django_start, log
from bench.harness import median

DB = "memstore_dropin"

# --- one run (child process) ------------------------------------------------------------------


def one_run(size: int, samples: int, static_only: bool = False) -> dict:
    root = VAR / "bench-dropin" / "memory"
    if root.exists():
        import shutil

        shutil.rmtree(root)
    root.mkdir(parents=True)
    bench_database(DB, fresh=True)
    django_start(root)

    from memstore.facts.paths import Scope
    from memstore.index import index_sync
    from memstore.recall.backfill import backfill_run

    before_texts = base_store(root)
    index_sync(scopes=[Scope("bot", "ada")])
    backfill_run()
    questions = itertools.cycle(random.Random(size).sample(locomo_questions(), 200))
    worker = _worker()
    try:
        reads = Reads(before_texts, questions)
        for _ in range(samples):
            reads.all("before")
        texts = hand_written(size)
        written = time.monotonic()
        drop_in(root, texts)
        reads.all("first")
        from django.conf import settings

        budget = settings.MEMORY_READ_BUDGET_MS
        caught_up = _catch_up(reads, written, size, static_only)
        return {"size": size, "budget": budget, **reads.results, **caught_up}
    finally:
        worker.terminate()
        worker.wait(30)


def _worker() -> subprocess.Popen:
    log("starting a worker (queue: embeddings)")
    command = [sys.executable, "manage.py", "procrastinate", "--skip-checks", "worker"]
    return subprocess.Popen(
        [*command, "--queues=embeddings"],
        cwd=REPO,
        env=os.environ.copy(),
        stdout=subprocess.DEVNULL,
        stderr=(VAR / "bench-dropin" / "worker.log").open("w"),
    )


class Reads:
    """The three reads, timed, with what they answered."""

    def __init__(self, before: list[str], questions) -> None:
        from memstore.rooms.access import Context, Room

        self.ctx = Context(bot="ada", room=Room("room-1", "routine"))
        self.before = set(before)
        self.questions = questions
        self.results: dict[str, list] = {}

    def _keep(self, name: str, ms: float, **facts) -> None:
        self.results.setdefault(name, []).append({"ms": round(ms, 1), **facts})

    def prompt(self, label: str) -> None:
        from memstore.prompt.answer import prompt_answer

        started = time.perf_counter()
        answer = prompt_answer(ctx=self.ctx)
        ms = (time.perf_counter() - started) * 1000
        shown = {f.text for block in answer.section.blocks for f in block.facts}
        kept = len(shown & self.before)
        self._keep(f"prompt_{label}", ms, memory=answer.memory, stale=answer.stale, kept=kept)

    def recall(self, label: str) -> None:
        from memstore.calls.recall import recall_answer

        started = time.perf_counter()
        timed = recall_answer(ctx=self.ctx, query=next(self.questions))
        ms = (time.perf_counter() - started) * 1000
        result = timed.value
        self._keep(
            f"recall_{label}",
            ms,
            memory=timed.memory,
            stale=timed.stale,
            found=len(result.items),
            waiting=result.waiting,
        )

    def console(self, label: str) -> None:
        from memstore.console.facts import FactQuery
        from memstore.console.search import bot_search
        from memstore.console.viewer import Viewer

        started = time.perf_counter()
        found = bot_search(
            bot="ada",
            viewer=Viewer(person="ann", staff=True),
            query=FactQuery(q=next(self.questions)),
        )
        ms = (time.perf_counter() - started) * 1000
        self._keep(f"console_{label}", ms, found=len(found.hits), waiting=found.waiting)

    def all(self, label: str) -> None:
        self.prompt(label)
        self.recall(label)
        self.console(label)


def _catch_up(reads: Reads, written: float, size: int, static_only: bool = False) -> dict:
    from memstore.index.behind import behind_wait
    from memstore.recall.backfill import backfill_state
    from memstore.recall.tiers import static_current
    from memstore.recall.vectors import embedder_current

    static = static_current(embedder_current())
    before = backfill_state()
    base = before.facts - before.waiting  # full vectors made before the drop-in
    words = meaning = first = None
    deadline = written + 60 + size / 20  # far more than a slow box needs
    while time.monotonic() < deadline:
        reads.recall("during")
        if words is None and behind_wait(timeout=0):
            words = time.monotonic() - written
            log(f"  words of every fact indexed after {words:.1f} s")
        state = backfill_state()
        if words is not None and state.waiting == 0:
            meaning = time.monotonic() - written
            first = meaning if first is None else first
            log(f"  every fact searchable by meaning after {meaning:.1f} s")
            break
        tiered = first is None and words is not None and static is not None
        if tiered and backfill_state(unless=static.name).waiting == 0:
            first = time.monotonic() - written
            log(f"  every fact searchable by a tier of meaning after {first:.1f} s")
            if static_only:
                break
        log(f"  {state.waiting:,} of {state.facts:,} facts waiting for a vector")
        time.sleep(1.0 if first is None else 2.0)  # the bench's own reads load the box too
    return {
        "words_s": words,
        "static_s": first,
        "meaning_s": meaning,
        "full_done": state.facts - state.waiting - base,
        "full_at": time.monotonic() - written,
        "load": os.getloadavg(),
    }


# --- the parent: runs, medians, docs ------------------------------------------------------------


QUICK = {
    "sizes": "500",
    "runs": "1",
    "samples": 2,
}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--sizes", default="5000,50000")
    parser.add_argument("--runs", default="3,2", help="runs per size (one number, or per size)")
    parser.add_argument("--texts", type=int, default=400, help="texts per throughput repeat")
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--static-only", action="store_true")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child's single run


def run(args):
    if args.one:
        print(json.dumps(one_run(args.one, args.samples, args.static_only)))
        return 0
    results = {}
    load_before = os.getloadavg()
    sizes = [int(s) for s in args.sizes.split(",")]
    runs = [int(r) for r in args.runs.split(",")]
    speed, full_rate = _throughput(args.texts)
    for size, count in zip(sizes, runs + runs[-1:] * len(sizes), strict=False):
        results[size] = [_child(size, args.samples, run, args.static_only) for run in range(count)]
    budget = next(iter(results.values()))[0]["budget"]
    body = _section(results, budget, args, load_before, os.getloadavg(), full_rate)
    body += "\n\n" + speed
    print(body)
    return 0


def _throughput(n: int, repeats: int = 3) -> tuple[str, float]:
    """Facts per second of the bundled model on 1 and 2 threads (the same texts, medians of
    `repeats`), and whether the vectors are the same bits; and the 1-thread rate."""
    import numpy as np

    django_start(migrate=False)
    from memstore.recall.embeddings import OnnxBgeEmbedder, bge_small_dir
    from memstore.recall.vectors import vectors_embedded

    folder = bge_small_dir()
    if folder is None:
        return "Throughput: the bundled model is not installed.", 0.0
    embedder = OnnxBgeEmbedder(folder)
    texts = hand_written(n, seed=5)
    rates, vectors = {}, {}
    for threads in (1, 2, 1, 2, 1, 2)[: 2 * repeats]:
        started = time.perf_counter()
        vectors[threads] = vectors_embedded(embedder, texts, threads)
        rates.setdefault(threads, []).append(n / (time.perf_counter() - started))
    same = np.array_equal(vectors[1], vectors[2])
    one, two = (median(rates[t]) for t in (1, 2))
    log(f"throughput: {one:.0f} facts/s on 1 thread, {two:.0f} on 2 (same bits: {same})")

    def takes(facts: int, rate: float) -> str:
        seconds = facts / rate
        return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"

    sizes = (5_000, 100_000, 1_000_000)
    text = "\n".join(
        [
            f"Embedding throughput (bundled bge-small int8, one text per run, {n} of these "
            f"texts, medians of {repeats}; load average {os.getloadavg()[0]:.1f}): "
            f"**{one:.0f} facts/s on 1 thread, {two:.0f} facts/s on 2** "
            f"(EMBEDDINGS_BACKFILL_THREADS=2 or `recall_embed --threads 2`); vectors "
            f"{'bit-identical' if same else 'NOT identical'} between the two.",
            "",
            "| facts | 1 thread | 2 threads |",
            "| ---: | ---: | ---: |",
            *(f"| {f:,} | {takes(f, one)} | {takes(f, two)} |" for f in sizes),
        ]
    )
    return text, one


def _child(size: int, samples: int, run: int, static_only: bool = False) -> dict:
    log(f"drop-in of {size:,} facts, run {run + 1}")
    command = [sys.executable, "-m", "bench", "dropin", "--one", str(size)]
    command += ["--static-only"] if static_only else []
    done = subprocess.run(
        [*command, "--samples", str(samples)], cwd=REPO, capture_output=True, text=True
    )
    sys.stderr.write(done.stderr[-4000:] if done.returncode else "")
    done.check_returncode()
    return json.loads(done.stdout.strip().splitlines()[-1])


def _median(runs: list[dict], key: str, field: str = "ms") -> float:
    return median(median(s[field] for s in run[key]) for run in runs)


def _worst(runs: list[dict], key: str) -> float:
    return max(max(s["ms"] for s in run[key]) for run in runs)


def _seconds(runs: list[dict], key: str) -> str:
    found = [r[key] for r in runs if r.get(key) is not None]
    return f"{median(found):.1f}" if found else "not reached"


def _times_row(size: int, runs: list[dict], measured: float = 0.0) -> str:
    """Seconds until searchable by words, by a tier of meaning and by the full model; the full
    model's rate (from the vectors it had made when the run stopped, else the throughput
    `measured` beforehand: the static tier goes first, so a run stopped there made none)."""
    rates = [r["full_done"] / r["full_at"] for r in runs if r.get("full_at") and r["full_done"]]
    rate = median(rates) if rates else measured
    full = _seconds(runs, "meaning_s")
    if full == "not reached" and rate:
        full = f"~{size / rate:.0f} (extrapolated)"
    loads = ", ".join(f"{r['load'][0]:.1f}" for r in runs)
    return (
        f"| {size:,} | {_seconds(runs, 'words_s')} | {_seconds(runs, 'static_s')} | {full} "
        f"| {rate:.0f} | {loads} |"
    )


def _section(
    results: dict, budget: int, args, load_before, load_after, full_rate: float = 0.0
) -> str:
    rows = []
    for size, runs in results.items():
        for read in ("prompt", "recall", "console"):
            during = (
                f"{_median(runs, 'recall_during'):.0f} (worst {_worst(runs, 'recall_during'):.0f})"
                if read == "recall"
                else ""
            )
            first = runs[0][f"{read}_first"][0]
            notes = ", ".join(f"{k}={v}" for k, v in first.items() if k != "ms")
            rows.append(
                f"| {size:,} | {read} | {_median(runs, f'{read}_before'):.0f} "
                f"| {_median(runs, f'{read}_first'):.0f} | {during} | {notes} |"
            )
    times = [_times_row(size, runs, full_rate) for size, runs in results.items()]
    return "\n".join(
        [
            f"`python -m bench dropin --sizes {args.sizes} --runs {args.runs} --samples "
            f"{args.samples}{' --static-only' if args.static_only else ''}` on the shared 2-core box (load average {load_before[0]:.1f} before, "
            f"{load_after[0]:.1f} after). Budget: {budget} ms for every prompt and recall read, "
            "sync included (MEMORY_READ_BUDGET_MS). A worker runs throughout (1 embedding "
            "thread). Milliseconds, medians over the runs; `first after` is the first read after "
            "the drop-in (its flags are from the first run).",
            "",
            "| facts dropped | read | unchanged store | first after | during catch-up | "
            "first answer |",
            "| ---: | --- | ---: | ---: | ---: | --- |",
            *rows,
            "",
            "Until searchable (seconds from the files being written):",
            "",
            "| facts dropped | by words (indexed) | by a tier of meaning (static or full vector) | "
            "by the full model (every vector) | full vectors/s | load average per run |",
            "| ---: | ---: | ---: | ---: | ---: | --- |",
            *times,
        ]
    )
