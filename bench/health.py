"""Health and upkeep at 50,000 facts: time and peak memory of one health report and
of upkeep passes over a store of realistic text, and what the duplicate rule suggests on it.

    python -m bench health [--facts 50000] [--runs 3] [--embeddings bge-small|none]

In a throwaway database and MEMORY_ROOT, bot `ada` gets `--facts` facts over 24 monthly logs
(90 % in its own memory, 10 % in its shard of a project): the LoCoMo dev facts
(../shared/bench/locomo-dev, 353 real lines, when it is there) and generated sentences from
40 shapes with varied words (names, places, foods, tools, hobbies, times: see SHAPES), 4 in 5
learned. Planted: 300 light-edit copies of learned facts, 300 transient statuses ("build
passed"), and old, unused, low-importance learned facts among the rest. Vectors: the LoCoMo
lines are embedded by the model; generated ones get `vectors_composed` (the sum of the real
vectors of the words they are made of: realistic cosines for timing, a few hundred model runs
instead of 50,000).

Measured in this process, each step from a warm start (Django loaded, the index built):
  health   `health_refresh` (what `manage.py memory health` and the worker run), `--runs` times
  upkeep   `upkeep_run` in report mode: pass 1 records proposals, pass 2 finds them all known;
           contradictions judged by a model answering at once (bench/upkeep.py's InstantJudge)
Peak memory is the process's high-water mark of resident memory during the step (VmHWM, reset
before it via /proc/self/clear_refs), beside its resident memory before the step.
"""

import json
import random
import time
from datetime import date, timedelta
from pathlib import Path

from bench._workspace import REPO, isolated_workspace, log, vectors_composed
from bench.harness import median

PEOPLE = ["Ana", "Bruno", "Carla", "Dan", "Eva", "Filipe", "Gil", "Hana", "Ivo", "Joana", "Kai", "Lia", "Marta", "Nuno", "Olga", "Pedro", "Quim", "Rita", "Sara", "Tiago", "Ursula", "Vasco", "Wanda", "Xavier", "Yara", "Zeca", "Amir", "Beatriz", "Chen", "Dmitri", "Elif", "Farah", "Goran", "Hugo", "Ines", "Jonas", "Kenji", "Leila", "Mateo", "Nadia", "Omar", "Priya", "Rafael", "Sofia", "Tomas", "Uma", "Viktor", "Wen", "Yusuf", "Zoe"]  # fmt: skip
PLACES = ["Lisbon", "Porto", "Berlin", "Madrid", "Paris", "Dublin", "Warsaw", "Prague", "Oslo", "Vienna", "Rome", "Athens", "Tokyo", "Seoul", "Lagos", "Nairobi", "Lima", "Quito", "Austin", "Denver", "Boston", "Chicago", "Toronto", "Montreal", "Sydney", "Perth", "Auckland", "Cairo", "Istanbul", "Krakow"]  # fmt: skip
FOODS = ["sushi", "ramen", "tacos", "pho", "paella", "dumplings", "falafel", "risotto", "curry", "bagels", "croissants", "kimchi", "hummus", "oysters", "empanadas", "gnocchi", "biryani", "ceviche", "pierogi", "baklava"]  # fmt: skip
TOOLS = ["Postgres", "Redis", "Kafka", "Figma", "Notion", "Linear", "Grafana", "Sentry", "Stripe", "Jira", "Slack", "Docker", "Terraform", "Vim", "Emacs", "Excel", "Tableau", "Airflow", "Snowflake", "Metabase"]  # fmt: skip
HOBBIES = ["climbing", "sailing", "pottery", "chess", "running", "cycling", "knitting", "baking", "birdwatching", "surfing", "painting", "gardening", "fishing", "photography", "woodworking", "skiing", "rowing", "yoga", "boxing", "juggling"]  # fmt: skip
THINGS = ["report", "budget", "roadmap", "launch", "audit", "offsite", "demo", "hiring", "plan", "release", "migration", "review", "newsletter", "contract", "workshop", "survey", "dashboard", "pitch", "retreat", "fundraiser"]  # fmt: skip
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
KIN = [
    "sister",
    "brother",
    "daughter",
    "son",
    "mother",
    "father",
    "cousin",
    "partner",
    "niece",
    "nephew",
]
ANIMALS = ["dog", "cat", "parrot", "rabbit", "tortoise", "hamster", "horse", "goldfish"]
SHAPES = [
    "{p} prefers {f} for team lunches",
    "{p} moved to {c} last {d}",
    "{p} keeps the {t} notes in {o}",
    "{p} is learning {h} on weekends",
    "{p}'s {k} lives in {c}",
    "{p} owns a {a} called {q}",
    "{p} asked for the {t} draft by {d}",
    "{p} is allergic to {f}",
    "The {t} moved to {c} after the {t2}",
    "{p} runs the {t} every {d} at {n}:00",
    "{p} switched from {o} to {o2} for the {t}",
    "{p} took up {h} after visiting {c}",
    "{p} and {q} share the {t} work",
    "{p} wants {t} updates to start with risks",
    "{p} flies to {c} for the {t} on {d}",
    "{p} cannot stand {f} but loves {f2}",
    "{p} bought a {h} kit in {c}",
    "{p} named the {a} after a street in {c}",
    "{p} reviews the {t} with {q} on {d}s",
    "{p} thinks {o} is too slow for the {t}",
    "{p} once lived in {c} for {n} years",
    "{p}'s {k} is visiting from {c} in {m}",
    "{p} set the {t} budget at {n}0 thousand",
    "{p} hosts a {f} night every {d}",
    "{p} broke a wrist while {h}",
    "{p} keeps a {a} and two {a2}s at home",
    "{p} will present the {t} in {c}",
    "{p} blocks {d} mornings for {h}",
    "{p} asked {q} to own the {t}",
    "{p} learned {h} from their {k}",
    "{p} dislikes meetings before {n}:00",
    "{p} is saving for a trip to {c}",
    "{p} runs {o} dashboards for the {t}",
    "{p}'s favourite dish in {c} is {f}",
    "{p} finished the {t} two weeks early",
    "{p} mentors {q} on {h} and {t} planning",
    "{p} only drinks tea after {n}:00",
    "{p} wrote the {t} checklist in {o}",
    "{p} and their {k} went {h} near {c}",
    "{p} stopped using {o} after the {t}",
]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
]


def sentence(rng: random.Random) -> str:
    pick = rng.choice
    return pick(SHAPES).format(
        p=pick(PEOPLE), q=pick(PEOPLE), c=pick(PLACES), d=pick(DAYS), f=pick(FOODS),
        f2=pick(FOODS), o=pick(TOOLS), o2=pick(TOOLS), h=pick(HOBBIES), t=pick(THINGS),
        t2=pick(THINGS), k=pick(KIN), a=pick(ANIMALS), a2=pick(ANIMALS), n=rng.randint(2, 19),
        m=pick(MONTHS),
    )  # fmt: skip


def parts() -> list[str]:
    """The words generated sentences are made of (what `vectors_composed` sums)."""
    skeleton = sorted({w for shape in SHAPES for w in shape.split() if "{" not in w and len(w) > 3})
    return [*PEOPLE, *PLACES, *FOODS, *TOOLS, *HOBBIES, *THINGS, *KIN, *ANIMALS, *skeleton]


def locomo_lines() -> list[tuple[date, str]]:
    from memstore.recall.evaluation import locomo_dev_dir

    folder = locomo_dev_dir(REPO)
    if folder is None:
        log("LoCoMo dev split not found: generated sentences only")
        return []
    with (folder / "facts.jsonl").open(encoding="utf-8") as rows:
        return [(date.fromisoformat(r["date"]), r["text"]) for r in map(json.loads, rows)]


def seed(root: Path, total: int) -> dict[str, int]:
    """Write the store; returns what it holds."""
    rng = random.Random(21)
    today = date(2026, 11, 30)
    lines: list[tuple[str, date, str, str]] = []  # folder, day, text, meta
    learned = " <!-- via=learner importance=0.7 -->"
    seen: set[str] = set()
    for day, text in locomo_lines():
        if text.lower() not in seen:
            seen.add(text.lower())
            lines.append(("own", day, text, ""))
    real = len(lines)
    while len(lines) < total - 600:
        text = sentence(rng)
        if text.lower() in seen:
            continue
        seen.add(text.lower())
        meta = learned if rng.random() < 0.8 else ""
        if meta and rng.random() < 0.1:
            meta = " <!-- via=learner -->"  # low importance: stale once old and unused
        lines.append(("own", today - timedelta(days=rng.randint(0, 720)), text, meta))
    for _, day, text, _ in rng.sample(lines[real:], 300):
        lines.append(("own", day + timedelta(days=1), f"{text}.", learned))
    for n in range(300):
        status = rng.choice(["Build passed", "Tests failed", "Deploy finished", "CI is green"])
        lines.append(("own", today - timedelta(days=n), f"{status} for run {n}", learned))
    rng.shuffle(lines)
    for i in range(0, len(lines), 10):  # every tenth line in ada's shard of a project
        lines[i] = ("project", *lines[i][1:])
    folders = {"own": root / "agents/ada/memory", "project": root / "projects/ops/memory/by-agent/ada"}  # fmt: skip
    by_file: dict[Path, list[str]] = {}
    for where, day, text, meta in lines:
        path = folders[where] / "log" / f"{day:%Y-%m}.md"
        by_file.setdefault(path, []).append(f"- ({day}) {text}{meta}")
    for path, rows in by_file.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("# Memory log\n\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return {"facts": len(lines), "locomo": real, "copies": 300, "statuses": 300}


def resident() -> tuple[int, int]:
    """(resident now, high-water mark) of this process in MB."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    return (int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024)


def measured(label: str, run) -> tuple[object, float, int, int]:
    """(result, seconds, resident MB before, peak MB during) of one step."""
    import gc

    gc.collect()
    Path("/proc/self/clear_refs").write_text("5")  # reset the high-water mark to now
    before = resident()[0]
    start = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - start
    peak = resident()[1]
    log(f"{label}: {seconds:.1f} s, resident {before} MB before, peak {peak} MB")
    return result, seconds, before, peak


RUNS = 3


QUICK = {"runs": 1, "facts": 2_000}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--facts", type=int, default=50_000)
    parser.add_argument("--embeddings", default="bge-small")


def run(args):
    with isolated_workspace("bench_health") as root:
        from django.conf import settings

        from bench.upkeep import InstantJudge
        from memstore.index import index_rebuild
        from memstore.recall.vectors import embedder_current, vectors_ensure
        from memstore.upkeep.health_snapshots import health_refresh
        from memstore.upkeep.run import upkeep_run

        settings.EMBEDDINGS = args.embeddings
        settings.LEARNING_DAILY_TOKENS = 10**9
        held = seed(root, args.facts)
        log(f"wrote {held['facts']:,} facts")
        index_rebuild()
        embedder = embedder_current()
        if embedder is not None:
            real = dict(enumerate(t for _, t in locomo_lines()))
            from memstore.facts.markdown import fact_identity

            vectors_ensure({fact_identity(t): t for t in real.values()}, embedder=embedder)
            log(f"composed {vectors_composed(embedder, parts()):,} vectors")
        health = [measured("health", lambda: health_refresh(key="bot:ada")) for _ in range(args.runs)]  # fmt: skip
        judge = InstantJudge()
        first = measured("upkeep pass 1", lambda: upkeep_run(bot="ada", client=judge))
        second = measured("upkeep pass 2", lambda: upkeep_run(bot="ada", client=judge))
        body = _section(args, held, health, first, second)
        print(body)


def _section(args, held, health, first, second) -> str:
    snapshot = health[-1][0]
    counts: dict[str, int] = {}
    for per_kind in snapshot.counts.values():
        for kind, n in per_kind.items():
            counts[kind] = counts.get(kind, 0) + n
    seconds = median(h[1] for h in health)
    peak = max(h[3] for h in health)
    before = min(h[2] for h in health)
    one, two = first[0], second[0]
    found = ", ".join(f"{n:,} {kind.replace('_', ' ')}" for kind, n in counts.items() if n)
    by = "bge-small (LoCoMo lines embedded, generated ones composed)" if args.embeddings != "none" else "words only (EMBEDDINGS=none)"  # fmt: skip
    return f"""`python -m bench health --facts {args.facts} --runs {args.runs} --embeddings {args.embeddings}`, {date.today()}, on the 2-core shared dev box (other engineers' jobs running).

One bot's store of {held["facts"]:,} facts (90 % its own memory, 10 % its shard of a project, 24 monthly logs): {held["locomo"]} LoCoMo dev lines and generated sentences from 40 shapes with varied words, 4 in 5 learned; {held["copies"]} light-edit copies and {held["statuses"]} transient statuses planted. Similarity by {by}. Each step timed in one process after the index was built; memory is the process's resident high-water mark during the step (reset before it), beside its resident memory before it.

| step | time | resident before | peak during | found |
| --- | ---: | ---: | ---: | --- |
| health report (`health_refresh`: what `manage.py memory health` and the worker run), median of {len(health)} | {seconds:.1f} s | {before} MB | {peak} MB | {found} |
| upkeep pass 1, report mode (records proposals) | {first[1]:.1f} s | {first[2]} MB | {first[3]} MB | {one.duplicates} duplicates, {one.contradictions} contradictions ({one.model_calls} model calls), {one.stale:,} stale |
| upkeep pass 2, report mode (every proposal known) | {second[1]:.1f} s | {second[2]} MB | {second[3]} MB | {two.duplicates} new, {two.model_calls} model calls (pairs judged in pass 1 are not asked again) |
"""
