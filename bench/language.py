"""The search language: what switching SEARCH_LANGUAGE costs, and a French search's speed.

    python -m bench language [--facts 50000] [--runs 3]

Builds an isolated workspace (its own database and MEMORY_ROOT) with one bot holding `--facts`
facts written as Markdown and synced the ordinary way, then times `language_switch` (what
`manage.py search_language --apply` runs: the generated word column and its GIN index made
again, every row's vector recomputed) from english to french and back, `--runs` times each way,
and, as the baseline from the same run, `index_rebuild` (`manage.py reindex`: every file read
and every row written again). Then times recall by words over those facts in each language
(median of 50 queries). Reports medians and the load average.
"""

import os
import random
import time
from datetime import date

from bench._workspace import isolated_workspace, log
from bench.console import write_bot
from bench.harness import median

QUERIES = ["lisbon budget", "weekly report", "flight hotel", "design review", "team dinner"]


RUNS = 3


QUICK = {"runs": 1, "facts": 1_000}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--facts", type=int, default=50_000)


def run(args):
    with isolated_workspace("bench_language") as root:
        return measure(root, args.facts, args.runs)


def measure(root, facts: int, runs: int) -> int:
    from django.conf import settings
    from django.db import connection

    from memstore.facts.paths import Scope
    from memstore.index import index_rebuild, index_sync
    from memstore.index.language import language_switch, language_wanted
    from memstore.recall import recall_in_scopes
    from memstore.recall.snapshot import snapshots_clear

    settings.EMBEDDINGS = "none"  # the word side is what a language changes
    log(f"writing {facts:,} facts as Markdown")
    write_bot(root, "big", facts, random.Random(7))
    scopes = [Scope("bot", "big")]
    started = time.perf_counter()
    index_sync(scopes=scopes)
    log(f"  first sync: {time.perf_counter() - started:.1f} s")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE memstore_fact")

    def switch(name: str) -> float:
        settings.SEARCH_LANGUAGE = name
        language = language_wanted()
        started = time.perf_counter()
        assert language_switch(language), name
        snapshots_clear()
        return time.perf_counter() - started

    def recall_ms() -> float:
        recall_in_scopes(scopes=scopes, query="warm up")
        samples = []
        for _ in range(10):
            for query in QUERIES:
                started = time.perf_counter()
                recall_in_scopes(scopes=scopes, query=query)
                samples.append((time.perf_counter() - started) * 1000)
        return median(samples)

    english_ms = recall_ms()
    to_french, to_english, rebuilds = [], [], []
    for run in range(runs):
        to_french.append(switch("french"))
        if run == 0:
            french_ms = recall_ms()
        to_english.append(switch("english"))
        started = time.perf_counter()
        index_rebuild()
        rebuilds.append(time.perf_counter() - started)
        log(f"  run {run + 1}: {to_french[-1]:.2f} s, {to_english[-1]:.2f} s, {rebuilds[-1]:.2f} s")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    fr, en, base = (median(x) for x in (to_french, to_english, rebuilds))
    body = f"""`python -m bench language --facts {facts} --runs {runs}`, {date.today()}, load average
{load} (the 2-core shared box, other sessions running), medians. One bot, {facts:,} facts.

| what | median | vs reindex |
| --- | ---: | ---: |
| `search_language --apply`, english → french (column and GIN index remade) | {fr:.2f} s | {fr / base:.2f}× |
| `search_language --apply`, french → english | {en:.2f} s | {en / base:.2f}× |
| baseline: `reindex` (every file read, every row written) | {base:.2f} s | 1× |
| recall by words, english (median of {10 * len(QUERIES)} queries) | {english_ms:.1f} ms | |
| recall by words, french | {french_ms:.1f} ms | |

The facts are English words either way, so the two recall rows compare the statement's cost in
each configuration, not French search quality (tests/memstore/index/test_language.py checks that). A
switch locks the fact table while it runs: reads wait for it rather than see half a column.
"""
    print(body)
    return 0
