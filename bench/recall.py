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

import json
import os
import random
import statistics
import time
from contextlib import contextmanager, nullcontext
from datetime import date, timedelta
from pathlib import Path

from bench import harness
from bench._recall_stages import stage_times
from bench._workspace import VAR, bench_database, django_start, log, vectors_composed
from bench.harness import median, p95

BENCH_DB = "memstore_bench_recall"

# fmt: off
PEOPLE = [
    "Alice", "Bruno", "Chen", "Dana", "Emil", "Farah", "Goran", "Hana", "Ivo", "Jana",
    "Kofi", "Lena", "Marta", "Nils", "Olga", "Priya", "Quinn", "Rafael", "Sara", "Tomas",
    "Uma", "Viktor", "Wren", "Ximena", "Yusuf", "Zoe", "Amara", "Bjorn", "Carmen", "Dario",
]
# fmt: on
# fmt: off
ACTIONS = [
    "booked", "reviewed", "asked about", "prefers", "wants to change", "finished", "is worried about",
    "presented", "cancelled", "rescheduled", "approved", "rejected", "drafted", "shared", "forgot",
    "moved", "paid for", "planned", "tested", "deployed", "signed", "renewed", "discussed",
    "questioned", "simplified", "documented", "measured", "ordered", "compared", "requested",
]
# fmt: on
THINGS = [
    "the offsite budget",
    "a flight to Lisbon",
    "the hotel near the venue",
    "the Q3 roadmap",
    "the SQL migration",
    "weekly reports",
    "the onboarding checklist",
    "a dark mode theme",
    "the staging deploy",
    "the customer invoice",
    "the hiring plan",
    "the design review",
    "the search index",
    "the release notes",
    "the retro agenda",
    "a rooftop dinner",
    "the NYC office lease",
    "the laptop order",
    "the security audit",
    "the pricing page",
    "the data export",
    "the team calendar",
    "the vendor contract",
    "the database backup",
    "the mobile app beta",
    "the support rota",
    "the training budget",
    "the API rate limits",
    "the quarterly goals",
    "the conference talk",
    "the office plants",
    "the coffee machine",
    "the travel policy",
    "the incident report",
    "the demo script",
    "the translation files",
    "the payroll run",
    "the board slides",
    "the accessibility fixes",
    "the holiday schedule",
]
WHEN = [
    "on Monday",
    "before the launch",
    "after the standup",
    "for next quarter",
    "with the finance team",
    "with the client",
    "during the retro",
    "by Friday",
    "for the Berlin team",
    "last week",
    "in the evening",
    "over lunch",
    "for the summer",
    "ahead of the audit",
    "with two colleagues",
    "without telling anyone",
    "as a favour",
    "for the third time",
    "at short notice",
    "for the new hires",
]
QUESTIONS = [
    "what did {who} decide about {thing}?",
    "{thing}",
    "who {action} {thing}",
    "anything about {thing} {when}?",
    "plane tickets for the team trip",
    "money for the offsite",
    "NYC lease",
    "when is the SQL migration",
]


def fact_texts(n: int, seed: int = 7) -> list[str]:
    """n distinct, readable fact texts (a sample of template combinations)."""
    rng = random.Random(seed)
    space = len(PEOPLE) * len(ACTIONS) * len(THINGS) * len(WHEN)
    texts = []
    for index in rng.sample(range(space), n):
        index, when = divmod(index, len(WHEN))
        index, thing = divmod(index, len(THINGS))
        who, action = divmod(index, len(ACTIONS))
        texts.append(f"{PEOPLE[who]} {ACTIONS[action]} {THINGS[thing]} {WHEN[when]}")
    return texts


def write_shard(root: Path, rel: str, texts: list[str], per_file: int = 100) -> None:
    """A shard: 5 % of its facts in profile.md, the rest in monthly logs of `per_file` facts."""
    base = root / rel
    (base / "log").mkdir(parents=True, exist_ok=True)
    header = "# Memory\n\n<!-- written by bench/recall.py -->\n\n"
    cut = max(1, len(texts) // 20)
    lines = [f"- (2023-01-{1 + i % 28:02d}) {text}\n" for i, text in enumerate(texts[:cut])]
    (base / "profile.md").write_text(header + "".join(lines))
    month = date(2026, 11, 1)
    for start in range(cut, len(texts), per_file):
        chunk = texts[start : start + per_file]
        lines = [
            f"- ({(month + timedelta(days=i % 28)).isoformat()}) {text}\n"
            for i, text in enumerate(chunk)
        ]
        (base / "log" / f"{month:%Y-%m}.md").write_text(header + "".join(lines))
        month = (month - timedelta(days=1)).replace(day=1)


def layout_write(root: Path, layout: str, texts: list[str]) -> dict:
    """Write a layout's files; returns what the searching context needs."""
    if layout == "solo":
        write_shard(root, "agents/solo/memory", texts, per_file=1000)
        return {"bot": "solo", "room": "routine", "person": None, "projects": []}
    scale = len(texts) / 100_000
    own, person, shard = int(2000 * scale), int(1000 * scale), int(1000 * scale)
    chunks = iter(texts[i : i + own] for i in range(0, 20 * own, own))
    for b in range(20):
        write_shard(root, f"agents/bot-{b:02d}/memory", next(chunks))
    offset = 20 * own
    for p in range(30):
        rel = f"users/person-{p:02d}/memory/by-agent/bot-{p % 20:02d}"
        write_shard(root, rel, texts[offset : offset + person])
        offset += person
    for j in range(10):
        for w in range(3):
            rel = f"projects/proj-{j:02d}/memory/by-agent/bot-{(j + w) % 20:02d}"
            write_shard(root, rel, texts[offset : offset + shard])
            offset += shard
    return {
        "bot": "bot-00",
        "room": "direct",
        "person": "person-00",
        "projects": ["proj-00", "proj-01", "proj-02"],
    }


def questions(rng: random.Random, n: int) -> list[str]:
    """n search queries shaped like a bot's: topics, names, questions, paraphrases, acronyms."""
    out = []
    for _ in range(n):
        template = rng.choice(QUESTIONS)
        out.append(
            template.format(
                who=rng.choice(PEOPLE),
                action=rng.choice(ACTIONS),
                thing=rng.choice(THINGS),
                when=rng.choice(WHEN),
            )
        )
    return out


def prepare(layout: str, facts: int, composed: bool = False) -> dict:
    """Files, index and vectors for a layout, reusing whatever an earlier run left."""
    from django.db import connection

    from memstore.index import index_rebuild
    from memstore.models import Fact
    from memstore.recall.vectors import embedder_current, vectors_ensure

    root = VAR / "bench" / f"recall-{layout}-{facts}"
    texts = fact_texts(facts)
    marker = root / ".complete"
    if not marker.exists():
        log(f"[{layout}] writing {facts:,} facts under {root}")
        marker.write_text(json.dumps(layout_write(root, layout, texts)))
    spec = json.loads(marker.read_text())
    os.environ["MEMORY_ROOT"] = str(root)
    from django.conf import settings

    settings.MEMORY_ROOT = root
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM memstore_memoryfile WHERE path LIKE %s", ["%/solo/%"])
        indexed_solo = cursor.fetchone()[0] > 0
    if Fact.objects.count() != facts or indexed_solo != (layout == "solo"):
        log(f"[{layout}] rebuilding the index from the files")
        start = time.perf_counter()
        report = index_rebuild()
        log(f"[{layout}] indexed {report.facts:,} facts in {time.perf_counter() - start:.1f} s")
    embedder = embedder_current()
    if embedder is not None and composed:
        n = vectors_composed(embedder, PEOPLE + ACTIONS + THINGS + WHEN)
        log(f"[{layout}] stored {n:,} composed vectors")
    if embedder is not None:
        by_id = dict(Fact.objects.values_list("fact_id", "text"))
        ids = sorted(by_id)
        start, computed = time.perf_counter(), 0
        for offset in range(0, len(ids), 5000):
            chunk = ids[offset : offset + 5000]
            computed += vectors_ensure({i: by_id[i] for i in chunk}, embedder=embedder)
            if computed:
                log(f"[{layout}] vectors: {offset + len(chunk):,}/{len(ids):,} checked")
        if computed:
            log(f"[{layout}] embedded {computed:,} facts in {time.perf_counter() - start:.1f} s")
    return spec


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
