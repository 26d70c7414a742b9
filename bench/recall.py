"""Recall latency on a 100,000-fact workspace.

    python -m bench recall [--facts 100000] [--runs 3] [--queries 40] [--layout team|solo|both]

Layouts (both hold --facts facts in all):
  team  20 bots, 30 people, 10 projects with 3 writing bots each. The searching bot, in a direct
        room with one person and 3 projects in play, reads 12 % of the workspace (12,000 facts).
  solo  every fact in one bot's own memory: the bot searches all 100,000.

Per layout and run: the median and p95 over --queries questions of `recall_search` end to end
(sync, query embedding, lexical and semantic search, fusion, loading the facts), next to the
same search with the meaning side as it was before the sign-bit ranking (HNSW from 20,000
facts, the full matrix product below), the query embedding alone, words-only recall, and the
reference design's word search measured in the same loop. The table reports the median of the
per-run medians; a second table puts hybrid recall against the query embedding alone (issue
25's baseline: the ratio, its target and the load average), a third says how many of the exact
product's nearest 10 and 100 rows each way of searching by meaning finds.

Runs against its own database `memstore_bench_recall` on the same server (DATABASE_URL, or the
embedded Postgres under ./var) and its own MEMORY_ROOT under ./var/bench, so the dev index is
untouched. The first run writes the files, indexes them and embeds every fact (minutes); later
runs reuse them, and switching layout only rebuilds the index (vectors are cached by identity).
Progress goes to stderr, the table to stdout.
"""

import random
import statistics
import time
from contextlib import contextmanager, nullcontext

from bench import harness
from bench._recall_stages import stage_times
from bench._recall_workspace import BENCH_DB, prepare, questions
from bench._workspace import bench_database, django_start, log
from bench.harness import median, p95


def measure(spec: dict, runs: int, n_queries: int, reference: int = 5) -> dict:
    from django.db import connection

    from memstore.recall import recall_search
    from memstore.recall.vectors import embedder_current
    from memstore.recall.words import words_search
    from memstore.rooms.access import readable_scopes
    from memstore.rooms.context import context_open
    from memstore.store.selectors import facts_list

    ctx = context_open(
        bot=spec["bot"],
        room_id="bench-room",
        room_kind=spec["room"],
        person=spec["person"],
        projects=(),
    )
    if spec["projects"]:
        from memstore.rooms.access import Context

        ctx = Context(
            bot=ctx.bot,
            room=ctx.room,
            person=ctx.person,
            projects=tuple(spec["projects"]),
            joined=frozenset(spec["projects"]),
        )
    scopes = readable_scopes(ctx)
    embedder = embedder_current()
    readable = facts_list(scopes=scopes, limit=1).total
    log(f"context reads {readable:,} facts in {len(scopes)} scopes")
    start = time.perf_counter()
    recall_search(ctx=ctx, query="warm up")
    cold = (time.perf_counter() - start) * 1000
    log(f"first search (loads this process's vectors): {cold:.0f} ms")
    try:  # a large scope's matrix is built behind the first search
        from memstore.recall.matrices import matrices_building
    except ImportError:  # before the sign-bit ranking

        def matrices_building() -> bool:
            return False

    start = time.perf_counter()
    while matrices_building():
        time.sleep(0.05)
    if time.perf_counter() - start > 0.05:
        log(f"its vector matrix, built behind it: {time.perf_counter() - start:.1f} s more")

    def words(question: str) -> None:
        words_search(facts_list(scopes=scopes, limit=1_000_000).items, question)

    try:
        from memstore.recall.query_vectors import query_vectors_clear
    except ImportError:  # before the query-vector cache

        def query_vectors_clear() -> None:
            pass

    def hybrid(question: str) -> None:
        query_vectors_clear()  # a new question: the model runs
        recall_search(ctx=ctx, query=question)

    def before(question: str) -> None:
        # The meaning side as it was before the sign-bit ranking: Postgres's HNSW index for
        # a search over 20,000 facts or more, the exact product over every row below that.
        with _meaning_before():
            hybrid(question)

    subjects = {
        "recall (hybrid)": hybrid,
        "recall (hybrid, meaning as before)": before,
        "recall (hybrid, query asked before)": lambda q: recall_search(ctx=ctx, query=q),
        "recall (words only)": lambda q: recall_search(ctx=ctx, query=q, mode="lexical"),
        "query embedding alone": (lambda q: embedder.embed_query(q)) if embedder else None,
        "reference word search": words,
    }
    subjects = {name: fn for name, fn in subjects.items() if fn is not None}
    per_run: dict[str, list[tuple[float, float]]] = {name: [] for name in subjects}
    rng = random.Random(11)
    load_before = harness.load()  # right before the measured part, not before the build
    for run in range(runs):
        batch = questions(rng, n_queries)
        for name, fn in subjects.items():
            samples = []
            # The reference word search loads every readable fact per query: fewer samples.
            for question in batch if name != "reference word search" else batch[:reference]:
                connection.queries_log.clear()
                if name.endswith("asked before)"):
                    fn(question)  # the timed call below finds its vector remembered
                t0 = time.perf_counter()
                fn(question)
                samples.append((time.perf_counter() - t0) * 1000)
            per_run[name].append((median(samples), p95(samples)))
        log(
            f"run {run + 1}/{runs}: "
            + ", ".join(f"{n} {v[-1][0]:.1f} ms" for n, v in per_run.items())
        )
    load_after = harness.load()
    log("stage timing (instrumented, one pass) ...")
    stages = stage_times(questions(random.Random(5), n_queries), hybrid, embedder)
    agreement = meaning_agreement(scopes, embedder, questions(random.Random(17), n_queries))
    return {
        "stages": stages,
        "agreement": agreement,
        "readable": readable,
        "cold_ms": cold,
        "load": (load_before, load_after),
        "rows": {
            name: (
                median(m for m, _ in values),
                median(p for _, p in values),
            )
            for name, values in per_run.items()
        },
    }


@contextmanager
def _meaning_before():
    """The meaning side as before the sign-bit ranking (for the same-run comparison): the
    HNSW statement for searches it served, the full matrix product below."""
    from memstore.recall import matrices, vectors

    saved = vectors.LOCAL_MAX_FACTS, matrices.BITS_MIN_ROWS
    vectors.LOCAL_MAX_FACTS, matrices.BITS_MIN_ROWS = 0, 1 << 62
    try:
        yield
    finally:
        vectors.LOCAL_MAX_FACTS, matrices.BITS_MIN_ROWS = saved


def meaning_agreement(scopes, embedder, questions_: list[str], k=(10, 100)) -> dict:
    """How many of the exact nearest `k` rows (the full product over every row) each way of
    searching by meaning finds, over these questions: {way: {k: share}}."""
    from memstore.recall import matrices, vectors
    from memstore.recall.snapshot import snapshots_current
    from memstore.recall.versions import versions_read

    if embedder is None:
        return {}
    keys = [str(scope) for scope in scopes]
    versions = versions_read(keys)
    snapshots = snapshots_current(versions, keys)

    def nearest(vector, limit: int) -> list[str]:
        found = vectors.vectors_search(
            scopes=scopes,
            query=vector,
            embedder=embedder,
            limit=limit,
            versions=versions,
            snapshots=snapshots,
        )
        return [hit.fact_id for hit in found.hits]

    ways = {"this code (sign bits + exact rescoring from 10,000 rows)": nullcontext}
    ways["HNSW index (before, solo)" if _hnsw_serves(scopes, embedder) else "exact"] = (
        _meaning_before
    )
    found = {way: {n: [] for n in k} for way in ways}
    for question in questions_:
        vector = embedder.embed_query(question)
        saved = matrices.BITS_MIN_ROWS
        matrices.BITS_MIN_ROWS = 1 << 62
        try:
            exact = nearest(vector, max(k))
        finally:
            matrices.BITS_MIN_ROWS = saved
        for way, context in ways.items():
            with context():
                got = nearest(vector, max(k))
            for n in k:
                want = set(exact[:n])
                found[way][n].append(len(want & set(got[:n])) / max(len(want), 1))
    return {way: {n: statistics.mean(v) for n, v in by_k.items()} for way, by_k in found.items()}


def _hnsw_serves(scopes, embedder) -> bool:
    from memstore.recall import vectors
    from memstore.recall.versions import versions_read

    keys = [str(scope) for scope in scopes]
    searched = sum(version[-1] for version in versions_read(keys).values())
    return searched >= vectors.ANN_MIN_FACTS and bool(vectors._ann_share(embedder, searched))


RUNS = 3


QUICK = {
    "runs": 1,
    "facts": 5_000,
    "queries": 5,
    "reference_queries": 1,
    "layout": "team",
}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--layout", choices=["team", "solo", "both"], default="both")
    parser.add_argument(
        "--reference-queries",
        type=int,
        default=5,
        help="questions per run for the reference word search (2 s each at 100,000 facts)",
    )
    parser.add_argument(
        "--composed-vectors",
        action="store_true",
        help="compose fact vectors from embedded template parts (seconds, not an hour; timing only)",
    )


def run(args):
    bench_database(BENCH_DB)
    django_start()
    layouts = ["team", "solo"] if args.layout == "both" else [args.layout]
    results = {}
    for layout in layouts:
        spec = prepare(layout, args.facts, args.composed_vectors)
        results[layout] = measure(spec, args.runs, args.queries, args.reference_queries)

    print(
        f"\nRecall latency, {args.facts:,}-fact workspace, median of {args.runs} runs "
        f"x {args.queries} queries (p95: median of the runs' p95)\n"
    )
    print("| layout | searched facts | what | p50 ms | p95 ms | p50 vs reference |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    for layout, result in results.items():
        base = result["rows"]["reference word search"][0]
        for name, (p50, tail) in result["rows"].items():
            print(
                f"| {layout} | {result['readable']:,} | {name} | {p50:.1f} | {tail:.1f} | "
                f"{p50 / base:.2f}x |"
            )
    targets = {"team": 1.5, "solo": 2.0}
    print("\nHybrid recall against the query embedding alone, same run (p50 ms)\n")
    print(
        "| layout | query embedding alone | hybrid | ratio | target | hybrid, meaning as "
        "before | its ratio | load before → after |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for layout, result in results.items():
        rows = result["rows"]
        if "query embedding alone" not in rows:
            continue
        base = rows["query embedding alone"][0]
        now, then = rows["recall (hybrid)"][0], rows["recall (hybrid, meaning as before)"][0]
        print(
            f"| {layout} | {base:.2f} | {now:.2f} | {now / base:.2f}x | "
            f"<= {targets.get(layout, 0):.1f}x | {then:.2f} | {then / base:.2f}x "
            f"| {result['load'][0]:.1f} → {result['load'][1]:.1f} |"
        )
    print("\nNearest rows by meaning found, against the exact product over every row:\n")
    print("| layout | way | recall@10 | recall@100 |")
    print("| --- | --- | ---: | ---: |")
    for layout, result in results.items():
        for way, by_k in result["agreement"].items():
            print(f"| {layout} | {way} | {by_k[10]:.3f} | {by_k[100]:.3f} |")
    print("\nWhere a hybrid search's time goes (median ms per query, instrumented pass):\n")
    print("| layout | stage | ms |")
    print("| --- | --- | ---: |")
    for layout, result in results.items():
        for name, ms in result["stages"].items():
            print(f"| {layout} | {name} | {ms:.2f} |")
    for layout, result in results.items():
        print(f"\n{layout}: first search in a fresh process {result['cold_ms']:.0f} ms")
    return results
