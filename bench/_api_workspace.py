"""`bench api`'s workspace: 100 bots x 1,000 facts of their own, user memory for 20 people and
10 projects with 10 member bots each, written once under var/bench/api/, indexed, registered,
and its facts embedded. Does not start the server or time anything (`bench.api`).
"""

import os
import random
import shutil
from datetime import date, timedelta
from pathlib import Path

from bench._workspace import VAR, log, vectors_composed

BENCH_DIR = VAR / "bench" / "api"
DB_NAME = "memoryconsole_bench_api"
BOTS, OWN_FACTS, PERSONS, PROJECTS, MEMBERS = 100, 1000, 20, 10, 10
LAYOUT = f"v1 bots={BOTS} facts={OWN_FACTS} persons={PERSONS} projects={PROJECTS}"
ENDPOINTS = ("health", "me", "list", "prompt", "recall")

WORDS = {
    "who": [
        "Alice",
        "Bruno",
        "Chen",
        "Dana",
        "Emil",
        "Farah",
        "Gita",
        "Hugo",
        "Ines",
        "Jonas",
        "Kira",
        "Leo",
        "Mina",
        "Noor",
        "Omar",
        "Pia",
    ],
    "likes": [
        "prefers",
        "likes",
        "avoids",
        "wants",
        "asked-for",
        "dislikes",
        "recommends",
        "uses",
        "needs",
    ],
    "thing": [
        "dark-mode",
        "tea",
        "espresso",
        "rooftop-venues",
        "standups",
        "async-updates",
        "spreadsheets",
        "SQL",
        "dashboards",
        "window-seats",
        "trains",
        "flights",
        "hotels",
        "vegan-food",
        "sushi",
        "jazz",
        "podcasts",
        "short-emails",
        "Slack",
        "weekly-reports",
        "bullet-points",
        "Python",
        "Rust",
        "Postgres",
        "Grafana",
        "Figma",
        "Notion",
        "Kanban",
        "demos",
        "OKRs",
        "retros",
        "code-reviews",
        "pair-programming",
        "early-meetings",
        "late-meetings",
        "quiet-rooms",
    ],
    "when": [
        "on-Mondays",
        "on-Fridays",
        "before-launch",
        "after-lunch",
        "in-Q3",
        "in-Q4",
        "during-travel",
        "for-reviews",
        "for-the-offsite",
        "when-remote",
        "at-the-office",
        "for-client-calls",
    ],
    "place": [
        "Lisbon",
        "Berlin",
        "NYC",
        "Tokyo",
        "Nairobi",
        "Toronto",
        "Madrid",
        "Oslo",
        "Austin",
        "Seoul",
        "Paris",
        "Dublin",
    ],
    "event": [
        "offsite",
        "launch",
        "budget-review",
        "hiring-plan",
        "roadmap",
        "migration",
        "audit",
        "workshop",
        "demo-day",
        "onboarding",
        "incident-review",
        "pricing-change",
    ],
}
TEMPLATES = (
    "{who} {likes} {thing} {when}",
    "{who} moved the {event} to {place}",
    "The {event} in {place} needs {thing}",
    "Decided to use {thing} for the {event}",
    "{who} booked a trip to {place} for the {event}",
    "Remember that {who} {likes} {thing}",
)


def fact_texts(rng: random.Random, n: int) -> list[str]:
    seen: set[str] = set()
    while len(seen) < n:
        template = rng.choice(TEMPLATES)
        text = template.format(**{k: rng.choice(v).replace("-", " ") for k, v in WORDS.items()})
        seen.add(f"{text} (#{rng.randrange(10_000)})" if text in seen else text)
    return sorted(seen, key=lambda _: rng.random())


def write_shard(root: Path, rel: str, texts: list[str], rng: random.Random, profile: int) -> None:
    """A shard folder: `profile` lasting facts, the rest spread over six monthly logs."""
    from memstore.facts import markdown

    start = date(2026, 6, 1)
    shard = root / rel
    (shard / "log").mkdir(parents=True, exist_ok=True)
    lines = [
        str(markdown.make_fact(text=t, day=start + timedelta(days=rng.randrange(180))))
        for t in texts[:profile]
    ]
    (shard / "profile.md").write_text("# Profile\n\n" + "\n".join(lines) + "\n")
    months: dict[str, list[str]] = {}
    for text in texts[profile:]:
        day = start + timedelta(days=rng.randrange(182))
        tag = rng.choices([None, "note", "episode"], weights=[8, 1, 1])[0]
        fact = markdown.make_fact(text=text, day=day, tag=tag)
        months.setdefault(f"{day:%Y-%m}", []).append(str(fact))
    for month, month_lines in months.items():
        (shard / "log" / f"{month}.md").write_text(
            "# Memory log\n\n" + "\n".join(month_lines) + "\n"
        )


def build_workspace(root: Path) -> None:
    rng = random.Random(20261130)
    if root.exists():
        shutil.rmtree(root)
    for b in range(BOTS):
        write_shard(root, f"agents/{bot(b)}/memory", fact_texts(rng, OWN_FACTS), rng, profile=100)
        if b % 10 == 0:
            log(f"  wrote {b + 10}/{BOTS} bots")
    for p in range(PERSONS):  # five bots know each person
        for b in range(p, BOTS, BOTS // 5)[:5]:
            write_shard(
                root, f"users/{person(p)}/memory/by-agent/{bot(b)}", fact_texts(rng, 40), rng, 10
            )
    for j in range(PROJECTS):
        for b in members(j):
            write_shard(
                root,
                f"projects/{project(j)}/memory/by-agent/{bot(b)}",
                fact_texts(rng, 50),
                rng,
                10,
            )


def bot(i: int) -> str:
    return f"bot-{i:03d}"


def person(i: int) -> str:
    return f"person-{i:02d}"


def project(i: int) -> str:
    return f"proj-{i}"


def members(j: int) -> list[int]:
    return [b for b in range(BOTS) if b % PROJECTS == j][:MEMBERS]


def prepare(fresh: bool, composed: bool = False) -> list[str]:
    """Database, files, index and registry for the bench; returns one fresh token per bot."""
    from django.core.management import call_command

    from memstore.facts.paths import all_scopes
    from memstore.index import index_rebuild, index_sync
    from memstore.models import Bot
    from memstore.registry.bots import bot_create, project_join
    from memstore.registry.people import person_add, person_link
    from memstore.registry.tokens import token_create

    call_command("migrate", verbosity=0)
    root = Path(os.environ["MEMORY_ROOT"])
    marker = BENCH_DIR / "layout"
    if fresh or not marker.exists() or marker.read_text() != LAYOUT:
        log(f"Writing the workspace under {root} ...")
        build_workspace(root)
        log("Indexing it (once) ...")
        report = index_rebuild(progress=None)
        log(f"  {report.files} files, {report.facts} facts")
        Bot.objects.all().delete()
        for b in range(BOTS):
            bot_create(slug=bot(b))
        for j in range(PROJECTS):
            for b in members(j):
                project_join(bot=bot(b), project=project(j))
        marker.write_text(LAYOUT)
    else:
        log("Reusing the workspace; syncing it ...")
        index_sync(scopes=all_scopes(root))
    for b in range(BOTS):  # each bot calls for one person: registered and linked (idempotent)
        person_add(name=person(b % PERSONS), exist_ok=True)
        person_link(person=person(b % PERSONS), bot=bot(b))
    prepare_recall(composed)
    from memstore.models import BotToken

    BotToken.objects.filter(bot__slug__startswith="bot-").delete()
    return [token_create(bot=bot(b), name="bench").token for b in range(BOTS)]


def prepare_recall(composed: bool = False) -> None:
    """Embed every fact once (`manage.py recall_embed`; vectors are cached by identity in the
    database), so recall is timed warm, as on a server that has been running. With `composed`,
    facts get vectors composed from their words' (bench._workspace.vectors_composed) first."""
    from django.core.management import call_command, get_commands

    from memstore.recall.vectors import embedder_current

    if composed and (embedder := embedder_current()) is not None:
        parts = [w.replace("-", " ") for words in WORDS.values() for w in words]
        log(f"Stored {vectors_composed(embedder, parts):,} composed vectors")
    if "recall_embed" in get_commands():
        log("Embedding facts that have no vector yet (manage.py recall_embed) ...")
        call_command("recall_embed")
