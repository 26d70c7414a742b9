"""Learning: the learner's own cost per exchange, and one worker's throughput.

    python -m bench learning [--exchanges 60] [--runs 3] [--statements]

In a throwaway database and MEMORY_ROOT, with a bot that already knows 800 facts (400 in its
own memory, 400 in the person's user memory):

  baseline   the two `fact_remember` calls an exchange typically ends in, made directly
  pipeline   exchange_submit + exchange_learn with an in-process scripted model that answers
             at once (two new facts per exchange, an episode every 6th), minus time in the model
  worker     exchanges queued, then one procrastinate worker draining them through the
             production OpenAI client against a loopback HTTP server answering at once

and, once before them, the statements one exchange sends, counted by the memstore function
that sent them (`--statements`: only that; BENCH_SQL=1 logs each one). Reports medians over the
runs with their ratio to the baseline and the load average.
"""

import os
import time
from datetime import date
from pathlib import Path

from bench._workspace import isolated_workspace, log
from bench.harness import median

HEADING = "### Learning throughput"
CHUNK = 12  # exchanges per measured chunk (two rooms, so an episode in each)


class InstantModel:
    """A model client answering at once: two new facts per exchange, a sentence for episodes."""

    def __init__(self, tag: str = "") -> None:
        self.tag = tag
        self.n = 0
        self.seconds = 0.0

    def complete(self, prompt, *, max_tokens):
        from memstore.llm.client import Completion

        start = time.perf_counter()
        self.n += 1
        if "one or two sentences" in prompt.system:
            text = f"Worked through planning batch {self.n} with the user."
        else:
            text = f"profile: Prefers option {self.tag}{self.n} for the offsite\nlog: Booked item {self.tag}{self.n}"
        result = Completion(text=text, tokens=900)
        self.seconds += time.perf_counter() - start
        return result


def seed(root: Path) -> None:
    """A fresh start for each measurement: 400 facts in the bot's memory and 400 in alice's
    user memory (this bot's shard), an empty learning record and budget."""
    import shutil

    from memstore.models import Exchange, TokenUsage

    for child in root.iterdir():
        shutil.rmtree(child)
    Exchange.objects.all().delete()
    TokenUsage.objects.all().delete()
    for rel in ("agents/ada/memory", "users/alice/memory/by-agent/ada"):
        folder = root / rel
        (folder / "log").mkdir(parents=True)
        profile = [
            f"- (2026-0{1 + i % 9}-1{i % 10}) Standing fact {i} about {rel[:5]}" for i in range(100)
        ]
        log_lines = [
            f"- (2026-01-{1 + i % 28:02d}) Event {i} happened in {rel[:5]}" for i in range(300)
        ]
        (folder / "profile.md").write_text("# Profile\n\n" + "\n".join(profile) + "\n")
        (folder / "log" / "2026-01.md").write_text("# Memory log\n\n" + "\n".join(log_lines) + "\n")
    from memstore.index import index_rebuild

    index_rebuild()


def contexts(run: int):
    from memstore.rooms.access import Context, Room

    return [
        Context(bot="ada", room=Room(id=f"dm-{run}", kind="direct"), person="alice"),
        Context(bot="ada", room=Room(id=f"team-{run}", kind="group")),
    ]


def submit_many(run: int, count: int, tag: str = "") -> tuple[list[int], float]:
    from memstore.learning import exchange_submit

    ids, rooms, tag = [], contexts(run), tag or str(run)
    start = time.perf_counter()
    for i in range(count):
        receipt = exchange_submit(
            ctx=rooms[i % 2],
            message=f"For the Lisbon offsite, can we go with option {i} and book the venue?",
            reply=f"Done: option {i} is noted and the venue request is sent.",
            message_id=f"b{tag}-m{i}",
            reply_id=f"b{tag}-r{i}",
        )
        ids.append(receipt.id)
    return ids, time.perf_counter() - start


def bench_baseline(count: int, tag: str) -> float:
    from memstore.facts.paths import Scope
    from memstore.store.services import fact_remember

    shard = Scope("user", "alice").shard("ada")
    start = time.perf_counter()
    for i in range(count):
        for tier, text in (
            ("profile", f"Baseline lasting {tag}-{i}"),
            ("log", f"Baseline {tag}-{i}"),
        ):
            fact_remember(shard=shard, text=text, tier=tier, meta={"via": "learner"}, via="learner")
    return (time.perf_counter() - start) / count


def bench_pipeline(count: int, run: int, tag: str) -> tuple[float, float, float]:
    """Per exchange: submit seconds, learn seconds without model time, and of those the
    seconds spent in the memory writes (memstore.store.services, the shared write path)."""
    from django.db import connection

    from memstore.learning import apply, pipeline
    from memstore.learning.queue import commits_relaxed
    from memstore.llm.config import learner_config

    ids, submit_seconds = submit_many(run, count, tag)
    commits_relaxed()  # as the queue's task does before learning
    model = InstantModel(tag=f"r{tag}-")
    config = learner_config()
    writes = [0.0]
    # The learner's writes, where it calls them now (its saves and its retirements).
    originals = apply.fact_remember, apply.learned_forget

    def timed(function):
        def call(**kwargs):
            start = time.perf_counter()
            try:
                return function(**kwargs)
            finally:
                writes[0] += time.perf_counter() - start

        return call

    apply.fact_remember, apply.learned_forget = (timed(f) for f in originals)
    try:
        start = time.perf_counter()
        for exchange_id in ids:
            status = pipeline.exchange_learn(exchange_id=exchange_id, client=model, config=config)
            assert status == "done", status
        learn_seconds = time.perf_counter() - start - model.seconds
    finally:
        apply.fact_remember, apply.learned_forget = originals
        with connection.cursor() as cursor:
            cursor.execute("SET synchronous_commit TO ON")  # the next submits are the web's
    return submit_seconds / count, learn_seconds / count, writes[0] / count


def _caller(stack) -> str:
    """The memstore function (file:function) that sent a statement: the innermost frame of
    memstore outside the index's and the ORM's plumbing."""
    for frame in reversed(stack):
        name = frame.filename.replace("\\", "/")
        if "/memstore/" in name and "/memstore/models" not in name:
            return f"{name.split('/memstore/', 1)[1]}:{frame.name}"
    return "other"


def statements_count(count: int, run: int, tag: str) -> tuple[dict[str, float], float]:
    """Per exchange learned (model answering at once): the statements sent, by the function
    that sent them, and in all (BEGIN/COMMIT of the ORM's transactions not included)."""
    import traceback
    from collections import Counter

    from django.db import connection

    from memstore.learning import pipeline
    from memstore.learning.queue import commits_relaxed
    from memstore.llm.config import learner_config

    ids, _ = submit_many(run, count, tag)
    commits_relaxed()
    model, config = InstantModel(tag=f"s{tag}-"), learner_config()
    seen: Counter[str] = Counter()

    def counted(execute, sql, params, many, context):
        caller = _caller(traceback.extract_stack())
        seen[caller] += 1
        if os.environ.get("BENCH_SQL"):
            log(f"    {caller}: {' '.join(sql.split())[:160]}")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(counted):
        for exchange_id in ids:
            assert pipeline.exchange_learn(exchange_id=exchange_id, client=model, config=config)
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit TO ON")
    return {k: v / count for k, v in seen.most_common()}, sum(seen.values()) / count


def bench_worker(count: int, run: int) -> float:
    from django.db import connections
    from procrastinate.contrib.django import app

    from memstore.models import Exchange

    ids, _ = submit_many(run, count)

    def close_when_idle(process_task, context, worker):
        # Keep the thread's connection between jobs, as a real worker does; close it with the
        # last job so the throwaway database can be dropped.
        try:
            return process_task()
        finally:
            if not Exchange.objects.filter(status="queued").exists():
                connections.close_all()

    start = time.perf_counter()
    with app.replace_connector(app.connector.get_worker_connector()):
        app.run_worker(
            queues=["learning"],
            wait=False,
            install_signal_handlers=False,
            listen_notify=False,
            task_middleware=[close_when_idle],
        )
    seconds = time.perf_counter() - start
    done = Exchange.objects.filter(pk__in=ids, status="done").count()
    assert done == count, f"only {done} of {count} exchanges learned"
    return count / seconds


RUNS = 3


QUICK = {"runs": 1, "exchanges": 10}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--exchanges", type=int, default=60)
    parser.add_argument(
        "--statements", action="store_true", help="only count the statements per exchange"
    )


def run(args):

    load = os.getloadavg()
    with isolated_workspace("bench_learning") as root:
        from django.conf import settings

        from tests.helpers import FakeModel, ok

        fake = FakeModel()
        fake.responder = lambda req: ok(
            "Worked through the offsite plan."
            if "one or two sentences" in req["messages"][0]["content"]
            else f"profile: Prefers venue w{len(fake.requests)}\nlog: Sent request w{len(fake.requests)}",
            tokens=900,
        )
        settings.LEARNING_BASE_URL = fake.url
        settings.LEARNING_MODEL = "scripted"
        settings.LEARNING_MODE = "write"
        settings.LEARNING_DAILY_TOKENS = 10**12
        settings.LEARNING_RETRY_WAIT = 0
        log(
            f"{args.runs} runs x {args.exchanges} exchanges from the same 800 facts, measured "
            f"in chunks of {CHUNK} alternating with the baseline (so both see the same load)"
        )
        seed(root)
        by_caller, statements = statements_count(
            int(os.environ.get("BENCH_SQL_N", CHUNK * 2)), 900, "count"
        )
        log(f"{statements:.1f} statements per exchange learned")
        for caller, n in by_caller.items():
            log(f"  {n:5.2f}  {caller}")
        if args.statements:
            fake.close()
            return 0
        baseline, submit, learn, writes, worker = [], [], [], [], []
        for run in range(args.runs):
            seed(root)
            for chunk in range(max(1, args.exchanges // CHUNK)):
                tag = f"{run}-{chunk}"
                baseline.append(bench_baseline(CHUNK, tag))
                s, lrn, w = bench_pipeline(CHUNK, run, tag)
                submit.append(s)
                learn.append(lrn)
                writes.append(w)
            seed(root)
            worker.append(bench_worker(args.exchanges, 1000 + run))
            log(
                f"run {run + 1}: baseline {median(baseline) * 1e3:.1f} ms, "
                f"submit {median(submit) * 1e3:.1f} ms, "
                f"learn {median(learn) * 1e3:.1f} ms "
                f"(writes {median(writes) * 1e3:.1f} ms), "
                f"worker {worker[-1]:.1f} exchanges/s (medians so far)"
            )
        fake.close()
        import gc

        gc.collect()

    med = median
    load_after = os.getloadavg()
    total = med(submit) + med(learn)
    chunks = list(zip(submit, learn, writes, baseline, strict=True))
    own = median(s + lrn - w for s, lrn, w, _ in chunks)
    own_ratio = median((s + lrn - w) / b for s, lrn, w, b in chunks)
    base = med(baseline)
    rows = [
        ("baseline: the same 2 `fact_remember` calls, made directly", base),
        ("`exchange_submit` (validate, store, queue the job)", med(submit)),
        ("`exchange_learn`, model time excluded", med(learn)),
        ("… of which memory writes (`memstore.store.services`)", med(writes)),
        ("**learner's own overhead** (submit + learn − writes)", own),
        ("total per exchange (submit + learn)", total),
        ("one worker end to end (queue + HTTP model answering at once)", 1 / med(worker)),
    ]
    table = [
        "| step | ms per exchange | exchanges/s | × baseline |",
        "| --- | ---: | ---: | ---: |",
        *(
            f"| {name} | {sec * 1e3:.1f} | {1 / sec:.0f} | "
            f"{own_ratio if sec is own else sec / base:.2f}× |"
            for name, sec in rows
        ),
    ]
    calls = ", ".join(f"{caller} {n:.2f}" for caller, n in by_caller.items())
    lines = [
        f"Command: `python -m bench learning --runs {args.runs} --exchanges {args.exchanges}` "
        f"({date.today()}; load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} before, "
        f"{load_after[0]:.2f} / {load_after[1]:.2f} / {load_after[2]:.2f} after). "
        f"Medians over chunks of {CHUNK} exchanges, each chunk alternating with the baseline so "
        "both see the same load. The bot already knows 800 facts (400 own, 400 in the person's "
        "user memory); every exchange ends in two new facts (a heavy case: most real exchanges "
        "save none or one) and every 6th adds an episode; half direct, half group. "
        "The × column is each figure over the baseline of the same chunks (for the learner's own "
        "overhead, the median of per-chunk ratios).",
        "",
        *table,
        "",
        f"Statements per exchange learned (`exchange_learn`, model answering at once; counted "
        f"over {CHUNK * 2} exchanges, by the memstore function that sent them; BEGIN/COMMIT not "
        f"counted): **{statements:.1f}** — {calls}.",
        "",
    ]
    text = "\n".join(lines)
    print(f"{HEADING}\n\n{text}")
    return 0
