"""What recording memory sources costs a bot's read: the prompt section and recall as the bots'
door serves them (`memstore.calls`), with and without the one statement each records.

    python -m bench sources [--facts 2000] [--runs 7] [--calls 40]

In a throwaway database and MEMORY_ROOT, bot `ada` gets `--facts` facts of its own (a profile
of 100, the rest over 12 monthly logs) and talks in a group room. Subjects take turns within
each run (bench/harness.py `measure`): `prompt` and `recall` as served
(`prompt_or_unavailable`, `recall_answer` of a few everyday queries), and the same with the
recording replaced by nothing (`… unrecorded`, the baseline each is compared with). Also the
recording statements alone: the prompt's upsert of its digest and ~130 fact ids, a recall's
insert of its ids.
"""

import random
from datetime import date, timedelta

from bench import harness
from bench._workspace import isolated_workspace, log

QUERIES = ["budget for the Lisbon offsite", "release review", "hiring plan Porto", "audit"]
WORDS = ["offsite", "budget", "roadmap", "launch", "audit", "release", "review", "hiring"]
PLACES = ["Lisbon", "Porto", "Berlin", "Madrid", "Paris", "Dublin", "Oslo", "Vienna"]

RUNS = 7
QUICK = {"runs": 1, "facts": 300, "calls": 5}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--facts", type=int, default=2_000)
    parser.add_argument("--calls", type=int, default=40)


def _write(root, facts: int) -> None:
    rng = random.Random(11)
    today = date.today()
    lines = {"profile.md": []}
    for n in range(facts):
        text = f"The {rng.choice(WORDS)} in {rng.choice(PLACES)} is number {n}"
        day = today - timedelta(days=rng.randrange(0, 360))
        name = "profile.md" if n < 100 else f"log/{day:%Y-%m}.md"
        lines.setdefault(name, []).append(f"- ({day.isoformat()}) {text}")
    for name, found in lines.items():
        path = root / "agents/ada/memory" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("# Memory\n\n" + "\n".join(sorted(found)) + "\n")


def run(args):
    with isolated_workspace("memstore_bench_sources") as root:
        import memstore.calls.prompt as door_prompt
        import memstore.calls.recall as door_recall
        from memstore.facts.paths import Scope
        from memstore.index import index_sync
        from memstore.learning.sources import prompt_served, recall_served
        from memstore.registry.bots import bot_create
        from memstore.rooms.access import Context, Room

        log(f"writing {args.facts:,} facts")
        _write(root, args.facts)
        bot_create(slug="ada")
        index_sync(scopes=[Scope("bot", "ada")])
        ctx = Context(bot="ada", room=Room(id="team", kind="group"))
        recorders = {door_prompt: door_prompt._served, door_recall: door_recall._served}

        def recorded(on: bool, step):
            def call(i):
                for module, recorder in recorders.items():
                    module._served = recorder if on else (lambda *a, **k: None)
                step(i)

            return call

        def prompt(_):
            door_prompt.prompt_or_unavailable(open_context=lambda: ctx)

        def recall(i):
            door_recall.recall_answer(ctx=ctx, query=QUERIES[i % len(QUERIES)])

        section = door_prompt.prompt_or_unavailable(open_context=lambda: ctx)
        facts = [f for block in section.section.blocks for f in block.facts]
        hits = door_recall.recall_answer(ctx=ctx, query=QUERIES[0]).value.items
        log(f"a section of {len(facts)} facts, a recall of {len(hits)}")
        rows = harness.measure(
            {
                "prompt unrecorded": recorded(False, prompt),
                "prompt": recorded(True, prompt),
                "recall unrecorded": recorded(False, recall),
                "recall": recorded(True, recall),
                "the prompt's upsert alone": lambda i: prompt_served(
                    bot="ada", room_id="team", digest=section.digest, facts=facts
                ),
                "a recall's insert alone": lambda i: recall_served(
                    bot="ada", room_id="team", facts=hits
                ),
            },
            runs=args.runs,
            inputs=list(range(args.calls)),
        )
        for name in ("prompt", "recall"):
            harness.baseline_apply(
                [r for r in rows if r.subject.startswith(name)], f"{name} unrecorded"
            )
        harness.rows_print(
            rows,
            f"Memory sources' recording on the bots' reads, {args.facts:,} facts "
            f"(`python -m bench sources --facts {args.facts} --runs {args.runs} "
            f"--calls {args.calls}`)",
        )
        return rows
