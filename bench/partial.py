"""Recall's substring fallback on partial words: the statement as it was and as it is now.

    python -m bench partial [--facts 50000] [--runs 15]

In a throwaway database and MEMORY_ROOT, the console bench's 50,000-fact bot (`bench console`:
sentences from 37 words, so every word is in about a quarter of the facts: the worst case for
any index). For each typed text, interleaved run by run: *before*, the fallback's two
statements as they were (the same fallback with Django's icontains,
`UPPER(text) LIKE UPPER('%…%')`, for the rows it reads and counts); *scan*, today's fallback forced to its plain `ILIKE` scan
(what a database with pg_trgm's index runs, here without the index); *prefix*, today's fallback
as this database runs it (the typed words as prefixes in the GIN index, checked with `ILIKE`).
Medians in ms, with the load average.
"""

import argparse
import os
import random
import statistics
import time

from bench._workspace import isolated_workspace, log

TYPED = ["li", "lisb", "lisbo", "xq"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench partial")
    parser.add_argument("--facts", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)

    with isolated_workspace("bench_partial") as root:
        from django.db import connection

        from bench.console import write_bot
        from memstore.facts.paths import Scope
        from memstore.index import index_sync
        from memstore.models import Fact
        from memstore.recall import partial
        from memstore.recall.search import _substring_fallback

        write_bot(root, "big", args.facts, random.Random(7))
        scope = Scope("bot", "big")
        index_sync(scopes=[scope])
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE memstore_fact")
        name = connection.settings_dict["NAME"]

        def now(typed: str, trigram: bool) -> float:
            partial._trigram[name] = trigram  # True: the plain ILIKE statement
            started = time.perf_counter()
            _substring_fallback(
                scopes=[scope],
                query=typed,
                limit=50,
                include_hidden=True,
                mode="auto",
                budget=10**9,
            )
            return (time.perf_counter() - started) * 1000

        from memstore.recall import search

        def icontains(*, scopes, query):  # the statement as it was before recall/partial.py
            return Fact.objects.filter(
                scope_key__in=[str(s) for s in scopes], text__icontains=query
            )

        def before(typed: str) -> float:
            search.containing = icontains
            try:
                return now(typed, True)
            finally:
                search.containing = partial.containing

        load = os.getloadavg()[0]
        print(
            f"{args.facts} facts, {args.runs} runs each, interleaved; load average {load:.1f} before"
        )
        print("| typed | before (icontains) ms | scan (ILIKE) ms | prefix (GIN + ILIKE) ms |")
        print("| --- | ---: | ---: | ---: |")
        for typed in TYPED:
            times: dict[str, list[float]] = {"before": [], "scan": [], "prefix": []}
            for _ in range(args.runs):
                times["before"].append(before(typed))
                times["scan"].append(now(typed, True))
                times["prefix"].append(now(typed, False))
            row = " | ".join(f"{statistics.median(times[k]):.1f}" for k in times)
            print(f"| '{typed}' | {row} |", flush=True)
        log(f"load average {os.getloadavg()[0]:.1f} after")
        print(f"load average {os.getloadavg()[0]:.1f} after")
    return 0
