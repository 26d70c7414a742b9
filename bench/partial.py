"""Console keystrokes on partial words, against a whole word's search in the same run.

    python -m bench partial [--facts 50000] [--runs 9] [--without-index]

In a throwaway database and MEMORY_ROOT, the console bench's 50,000-fact bot (`bench console`:
sentences from 37 words, so every word is in about a quarter of the facts: the worst case for
any index), synced and analysed. A staff person's keystroke is the bot page's search as htmx
asks for it (`/bots/big/?q=…`, the whole Django request through the test client). Each run
times every typed text once, in turn, so the baseline (the whole word "lisbon", found by its
word) and the partial words ("li", "lisb", "lisbo", "isbo" inside a word; "xq" in no fact)
share the same moments of load. Medians in ms, the ratio to the baseline, the CPU this
process spent on the keystroke (Django, the view, the template, and any thread of the process
busy meanwhile) and by its Postgres backend, the SQL statements of one keystroke, and the
load average before and after (bench/harness.py's `measure`).

`--without-index` drops pg_trgm's index first: what a `DATABASE_URL` server without pg_trgm
runs (recall/partial.py's prefix path). The first run is a warm-up and is not counted. Takes
about a minute with the defaults on a 2-core box.
"""

import random

from bench._workspace import isolated_workspace, log
from bench.harness import measure, rows_print

BASELINE = "lisbon"
TYPED = ["li", "lisb", "lisbo", "isbo", "xq"]


RUNS = 9


QUICK = {"runs": 2, "facts": 2_000}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--facts", type=int, default=50_000)
    parser.add_argument("--without-index", action="store_true")


def run(args):

    with isolated_workspace("bench_partial") as root:
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext

        from bench.console import write_bot
        from memstore.facts.paths import Scope
        from memstore.index import index_sync
        from memstore.recall import partial

        log(f"writing {args.facts:,} facts as Markdown and syncing them")
        write_bot(root, "big", args.facts, random.Random(7))
        index_sync(scopes=[Scope("bot", "big")])
        with connection.cursor() as cursor:
            if args.without_index:
                cursor.execute(f"DROP INDEX IF EXISTS {partial.TRIGRAM_INDEX}")
            cursor.execute("VACUUM ANALYZE memstore_fact")
        partial._trigram.clear()
        indexed = partial.trigram_ready()
        person = get_user_model().objects.create_user("bench", password="x", is_staff=True)
        client = Client()
        client.force_login(person)

        def keystroke(typed: str) -> str:
            response = client.get("/bots/big/", {"q": typed}, HTTP_HX_REQUEST="true")
            assert response.status_code == 200, (typed, response.status_code)
            return response.content.decode()

        texts = [BASELINE, *TYPED]
        statements = {}
        for typed in texts:
            keystroke(typed)  # warm-up: the scope's snapshot, the query's vector
            with CaptureQueriesContext(connection) as queries:
                keystroke(typed)
            statements[typed] = len(queries)
        subjects = {f"'{t}'": (lambda t=t: keystroke(t)) for t in texts}
        rows = measure(subjects, runs=args.runs, baseline=f"'{BASELINE}'", warmup=0)
    for row, typed in zip(rows, texts, strict=True):
        row.extra["SQL statements"] = statements[typed]
    path = "pg_trgm's index" if indexed else "no trigram index: prefixes in the GIN, then ILIKE"
    title = f"`python -m bench partial` {args.facts:,} facts, {args.runs} runs; {path}"
    rows_print(rows, title + f" (baseline '{BASELINE}': found by its word)")
    return rows
