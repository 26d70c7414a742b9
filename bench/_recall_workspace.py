"""`bench recall`'s workspace and questions: the word lists its fact texts and questions are made
of, the files of each layout (team, solo) under var/bench/, their index and their vectors,
reused across runs. `bench scale`, `bench dropin` and the million-fact run share the texts.
Does not time anything (`bench.recall`).
"""

import json
import os
import random
import time
from datetime import date, timedelta
from pathlib import Path

from bench._workspace import VAR, log, vectors_composed

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
    """n distinct, readable fact texts (a sample of template combinations; at most as many as
    there are combinations)."""
    rng = random.Random(seed)
    space = len(PEOPLE) * len(ACTIONS) * len(THINGS) * len(WHEN)
    texts = []
    for index in rng.sample(range(space), min(n, space)):
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
