"""Usage in the ranking: what reading usage costs the prompt and recall.

    python -m bench usage [--facts 20000] [--runs 7] [--calls 40]

In a throwaway database and MEMORY_ROOT, bot `ada` gets `--facts` facts over 24 monthly logs of
its own memory. Measured in this process (Django loaded, the index built, words-only recall so
no model is involved), with the prompt's block cache cleared before every build:
  prompt   `prompt_build` for ada in a group room (its block query LEFT JOINs the usage table)
  recall   `recall_search` of a few everyday queries (one usage read of the hits per search)
each first with no usage recorded (the baseline, as on a fresh install or LoCoMo), then with a
usage row for every fact (recalled and prompted counts, some recent, some idle for months).
Figures are medians of `--runs` runs of `--calls` calls each; the ratio is to the baseline of
the same run.
"""

import os
import random
import time
from datetime import date, timedelta

from bench._workspace import isolated_workspace, log
from bench.harness import median

WORDS = [
    "offsite",
    "budget",
    "roadmap",
    "launch",
    "audit",
    "demo",
    "hiring",
    "release",
    "migration",
    "review",
    "contract",
]
PLACES = [
    "Lisbon",
    "Porto",
    "Berlin",
    "Madrid",
    "Paris",
    "Dublin",
    "Warsaw",
    "Prague",
    "Oslo",
    "Vienna",
]
QUERIES = ["budget for the Lisbon offsite", "release review", "hiring plan Porto", "audit"]


def _write(root, facts: int) -> None:
    rng = random.Random(7)
    today = date.today()
    months: dict[str, list[str]] = {}
    for n in range(facts):
        day = today - timedelta(days=rng.randrange(0, 720))
        text = f"The {rng.choice(WORDS)} in {rng.choice(PLACES)} is number {n}"
        months.setdefault(f"{day:%Y-%m}", []).append(f"- ({day.isoformat()}) {text}")
    folder = root / "agents/ada/memory/log"
    folder.mkdir(parents=True)
    for month, lines in months.items():
        (folder / f"{month}.md").write_text("# Memory\n\n" + "\n".join(sorted(lines)) + "\n")


def _usage_everywhere() -> int:
    from django.db import connection
    from django.utils import timezone

    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO memstore_factusage (scope_key, fact_id, recalled, prompted, last_used)"
            " SELECT scope_key, fact_id, (id %% 7), (id %% 11) + 1,"
            " %s - make_interval(days => (id %% 200)::int) FROM memstore_fact",
            [now],
        )
        count = cursor.rowcount
        cursor.execute("ANALYZE memstore_factusage")  # as autovacuum would, soon after
        return count


def _timed(calls: int, step) -> float:
    start = time.perf_counter()
    for i in range(calls):
        step(i)
    return (time.perf_counter() - start) / calls * 1000


RUNS = 7


QUICK = {"runs": 1, "facts": 1_000, "calls": 5}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--facts", type=int, default=20_000)
    parser.add_argument("--calls", type=int, default=40)


def run(args):
    with isolated_workspace("memstore_bench_usage") as root:
        from memstore.facts.paths import Scope
        from memstore.index import index_sync
        from memstore.prompt.cache import prompt_cache_clear
        from memstore.prompt.section import prompt_build
        from memstore.recall.search import recall_search
        from memstore.registry.bots import bot_create
        from memstore.rooms.access import Context, Room

        log(f"writing {args.facts:,} facts")
        _write(root, args.facts)
        bot_create(slug="ada")
        index_sync(scopes=[Scope("bot", "ada")])
        ctx = Context(bot="ada", room=Room(id="team", kind="group"))

        def prompt(_):
            prompt_cache_clear()
            prompt_build(ctx=ctx)

        def recall(i):
            recall_search(ctx=ctx, query=QUERIES[i % len(QUERIES)], mode="lexical")

        results: dict[str, dict[str, list[float]]] = {"prompt": {}, "recall": {}}
        for label in ("none", "every fact"):
            if label == "every fact":
                log(f"usage rows: {_usage_everywhere():,}")
            for name, step in (("prompt", prompt), ("recall", recall)):
                step(0)  # warm
                results[name][label] = [_timed(args.calls, step) for _ in range(args.runs)]
        load = os.getloadavg()
        lines = [
            f"Command: `python -m bench usage --facts {args.facts} --runs {args.runs} --calls "
            f"{args.calls}`. One bot, {args.facts:,} facts of its own over 24 months; "
            "`prompt_build` in a group room with the block cache cleared before each build, "
            "words-only `recall_search` of 4 everyday queries; medians of "
            f"{args.runs} runs of {args.calls} calls, in one process. Load average "
            f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min) at the end, on "
            "the shared 2-core machine.",
            "",
            "The prompt figure is a block's load, paid when the scope's files change or once a "
            "day; the per-process block cache serves the prompts in between. With a usage row "
            "for every fact the block query's join and nudge cost about a third more; recall "
            "reads the usage of its hits only, within the noise here.",
            "",
            "| step | usage recorded | median ms per call | vs none |",
            "| --- | --- | ---: | ---: |",
        ]
        for name in ("prompt", "recall"):
            base = median(results[name]["none"])
            for label in ("none", "every fact"):
                ms = median(results[name][label])
                lines.append(f"| {name} | {label} | {ms:.1f} | {ms / base:.2f} × |")
        body = "\n".join(lines) + "\n"
        print(body)
