"""Who is calling, remembered or asked: one process's cost of an API recall both ways.

    python -m bench auth [--facts 2000] [--calls 400] [--chunk 20] [--profile N]

In a throwaway database and MEMORY_ROOT: one bot with `--facts` facts in its own memory and
user memory, a token, a person link and a bound direct room. Recalls go through Django's test
client (middleware, ninja, token, context, sync, recall, JSON; no socket), words only so the
model's time does not drown the difference, in chunks that alternate between

  remembered  the token, link and binding remembered at the authorization generation (as served)
  asked       nothing remembered, so all three are asked of Postgres on every call (what
              every call did before; the shared sync + read transaction stays)

and `GET /api/v1/health` in the same loop as the baseline. Prints p50 wall and CPU (this
process: Python's share; Postgres's is in the wall time) per call, SQL statements per call,
and the load average. `--profile N`: instead, N remembered recalls under cProfile, the
functions that took the most time (own and cumulative) printed.
"""

import cProfile
import io
import os
import pstats
import time

from bench._workspace import isolated_workspace, log
from bench.harness import median, p95

QUICK = {"facts": 200, "calls": 40, "chunk": 10}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--facts", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--chunk", type=int, default=20)
    parser.add_argument("--profile", type=int, default=0, help="profile N recalls instead")


def run(args):

    with isolated_workspace("bench_auth") as root:
        from django.conf import settings
        from django.db import connection
        from django.test import Client
        from django.test.utils import CaptureQueriesContext

        from memstore.registry import generation
        from memstore.registry.bots import bot_create
        from memstore.registry.people import person_add, person_link
        from memstore.registry.tokens import token_create

        settings.EMBEDDINGS = "none"
        bot_create(slug="ada")
        person_add(name="alice")
        person_link(person="alice", bot="ada")
        token = token_create(bot="ada").token
        words = ["budget", "offsite", "lisbon", "flight", "hotel", "review", "launch", "tea"]
        for rel, n in (
            ("agents/ada/memory/log/2026-11.md", args.facts // 2),
            ("users/alice/memory/by-agent/ada/log/2026-11.md", args.facts // 2),
        ):
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            lines = [
                f"- (2026-11-{i % 28 + 1:02d}) {words[i % 8]} item {i} with {words[(i * 3) % 8]}"
                for i in range(n)
            ]
            path.write_text("# Memory\n\n" + "\n".join(lines) + "\n")
        client = Client(HTTP_HOST="localhost")
        headers = {
            "HTTP_AUTHORIZATION": f"Bearer {token}",
            "HTTP_X_ROOM_ID": "dm-1",
            "HTTP_X_ROOM_KIND": "direct",
            "HTTP_X_PERSON": "alice",
        }

        def recall(i: int) -> None:
            answer = client.get(
                "/api/v1/recall", {"query": f"{words[i % 8]} {words[(i + 3) % 8]}"}, **headers
            )
            assert answer.status_code == 200, answer.content

        def health(i: int) -> None:
            assert client.get("/api/v1/health").status_code == 200

        remembered = generation.GenerationCache.get
        modes = {"remembered": remembered, "asked": lambda self, key, generation: None}

        def use(mode: str) -> None:
            generation.GenerationCache.get = modes[mode]  # "asked": nothing is ever remembered

        for i in range(30):  # warm: snapshots, caches, connection
            recall(i)
        if args.profile:
            return _profiled(recall, args.profile)
        counts = {}
        for mode in modes:
            use(mode)
            recall(0)
            with CaptureQueriesContext(connection) as captured:
                recall(1)
            counts[mode] = len(captured.captured_queries)
        wall: dict[str, list[float]] = {"remembered": [], "asked": [], "health": []}
        cpu: dict[str, list[float]] = {k: [] for k in wall}
        load_before = os.getloadavg()[0]
        n = 0
        while n < args.calls:
            for mode in ("remembered", "asked", "health"):
                use("remembered" if mode == "health" else mode)
                call = health if mode == "health" else recall
                for j in range(args.chunk):
                    w, c = time.perf_counter(), time.process_time()
                    call(n + j)
                    wall[mode].append(time.perf_counter() - w)
                    cpu[mode].append(time.process_time() - c)
            n += args.chunk
        use("remembered")
        load_after = os.getloadavg()[0]
        log("done")
        print(
            f"{args.facts} facts, {args.calls} calls each, chunks of {args.chunk} alternating; "
            f"load average {load_before:.1f} before, {load_after:.1f} after"
        )
        print("| call | wall p50 ms | wall p95 ms | CPU p50 ms (this process) | statements |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for mode in wall:
            ms = sorted(x * 1000 for x in wall[mode])
            print(
                f"| {mode} | {median(ms):.2f} | {p95(ms):.2f} | "
                f"{median(cpu[mode]) * 1000:.2f} | {counts.get(mode, '')} |"
            )
    return 0


def _profiled(call, n: int) -> int:
    profile = cProfile.Profile(time.process_time)  # CPU of this process, not waits
    profile.enable()
    for i in range(n):
        call(i)
    profile.disable()
    if os.environ.get("BENCH_PROFILE_OUT"):  # for pstats / snakeviz
        profile.dump_stats(os.environ["BENCH_PROFILE_OUT"])
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        stats = pstats.Stats(profile, stream=out).sort_stats(order)
        stats.print_stats(35)
        print(f"--- {n} recalls, by {order} ---")
        print("\n".join(out.getvalue().splitlines()[:60]))
    return 0
