"""What the bundled rerankers cost a recall: the cross-encoder at N = 10, 20 and 30 reranked
facts, the late-interaction reranker at N = 10 and 20.

    python -m bench rerank [--runs 3] [--data ../shared/bench/locomo-dev] [--only late]

Loads the LoCoMo dev split (353 facts, 231 scored questions) into a throwaway database and
MEMORY_ROOT, embeds every fact, then asks every question, in a shuffled order each run, once
as plain hybrid recall (the baseline) and once with each reranker on the fusion's first N
for each N, back to back so all see the same load. The late-interaction reranker remembers each
fact's token vectors: the untimed warm-up asks 5 questions, so its first run also pays for
encoding most facts once (a later run, with `--runs 2` or more, is the warm cost). The time budget is lifted so every rerank
finishes; the table says how often each N would have passed the configured
RECALL_RERANK_TIMEOUT_MS (and so answered in the fusion's order). Reports the median over runs
of each configuration's per-run median and p95, the ratio to the baseline, and the reranker's
own time; the load average before and after. Progress goes to stderr, the table to stdout.
"""

import os
import random
import time
from pathlib import Path

from bench._workspace import isolated_workspace, log
from bench.harness import median, p95

NS = (10, 20, 30)
LATE_NS = (10, 20)


RUNS = 3


QUICK = {"runs": 1}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument(
        "--only", choices=("local", "late"), default=None, help="one reranker (default: both)"
    )


def run(args):
    load_before = os.getloadavg()
    with isolated_workspace("memstore_bench_rerank"):
        rows, budget = _measure(args.runs, args.data, args.only)
    load_after = os.getloadavg()
    base = rows["hybrid (baseline)"]["p50"]
    print(
        f"\nRecall with the bundled rerankers, LoCoMo dev (231 questions), median of "
        f"{args.runs} runs; load average {load_before[0]:.1f} before, {load_after[0]:.1f} after\n"
    )
    print(
        "| what | p50 ms | p95 ms | p50 vs baseline | reranker alone p50 ms | "
        f"past {budget:.0f} ms |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, row in rows.items():
        alone = f"{row['alone']:.1f}" if row["alone"] is not None else "—"
        past = f"{row['past']:.0%}" if row["past"] is not None else "—"
        print(
            f"| {name} | {row['p50']:.1f} | {row['p95']:.1f} | {row['p50'] / base:.2f}x | "
            f"{alone} | {past} |"
        )


def _configs(only: str | None) -> list[tuple[str, tuple[str, int] | None]]:
    """(name, (RECALL_RERANK, N) or None for the baseline), the baseline first."""
    configs: list[tuple[str, tuple[str, int] | None]] = [("hybrid (baseline)", None)]
    if only in (None, "local"):
        configs += [(f"hybrid + cross-encoder, N = {n}", ("local", n)) for n in NS]
    if only in (None, "late"):
        configs += [(f"hybrid + late interaction, N = {n}", ("late", n)) for n in LATE_NS]
    return configs


def _measure(runs: int, data: Path | None, only: str | None = None) -> tuple[dict, float]:
    from django.conf import settings
    from django.test.utils import override_settings

    from memstore.models import Fact
    from memstore.recall import evaluation
    from memstore.recall.search import recall_search
    from memstore.recall.vectors import embedder_current, vectors_ensure

    folder = data or evaluation.locomo_dev_dir(Path(settings.BASE_DIR))
    if folder is None:
        raise SystemExit("Name the data folder (--data): ../shared/bench/locomo-dev is not there.")
    facts, queries = evaluation.dataset_load(folder)
    workspace = evaluation.workspace_load(facts, log)
    texts = dict(Fact.objects.order_by("fact_id").values_list("fact_id", "text"))
    vectors_ensure(texts, embedder=embedder_current())
    budget = float(settings.RECALL_RERANK_TIMEOUT_MS)
    configs = _configs(only)
    per_run: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in configs}
    alone: dict[str, list[float]] = {name: [] for name, n in configs if n}

    def ask(query, n):
        ctx = evaluation.context_of(workspace.bots[query.conv_id])
        if n is None:
            return recall_search(ctx=ctx, query=query.question, mode="hybrid", rerank=False)
        kind, n = n
        with override_settings(
            RECALL_RERANK=kind, RECALL_RERANK_TOP_N=n, RECALL_RERANK_TIMEOUT_MS=60_000
        ):
            return recall_search(ctx=ctx, query=query.question, mode="hybrid")

    for query in queries[:5]:  # load the models, warm the snapshots: not timed
        for _, n in configs:
            ask(query, n)
    for run in range(runs):
        order = list(queries)
        random.Random(run).shuffle(order)
        millis: dict[str, list[float]] = {name: [] for name, _ in configs}
        for query in order:
            for name, n in configs:
                start = time.perf_counter()
                result = ask(query, n)
                millis[name].append((time.perf_counter() - start) * 1000)
                if n and result.reranking is not None:
                    alone[name].append(result.reranking.millis)
        for name, values in millis.items():
            per_run[name].append((median(values), p95(values)))
        log(
            f"run {run + 1}/{runs}: " + ", ".join(f"{k} {v[-1][0]:.1f}" for k, v in per_run.items())
        )
    rows = {}
    for name, _ in configs:
        spent = alone.get(name)
        rows[name] = {
            "p50": median(p50 for p50, _ in per_run[name]),
            "p95": median(p95 for _, p95 in per_run[name]),
            "alone": median(spent) if spent else None,
            "past": sum(ms > budget for ms in spent) / len(spent) if spent else None,
        }
    return rows, budget
