"""`bench dropin`'s facts: ada's LoCoMo store as written before the drop-in, and the hand-written
texts dropped in beside it (LoCoMo lines retold with other names, upkeep's sentences, `bench
recall`'s templates, diary lines), written as monthly logs. Does not time anything
(`bench.dropin`).
"""

import json
import random
from datetime import date, timedelta
from pathlib import Path

from bench._workspace import REPO

LOCOMO = REPO.parent / "shared" / "bench" / "locomo-dev"
NAMES = ["Ana", "Bruno", "Carla", "Dmitri", "Eva", "Farah", "Gustavo", "Hana", "Ivo", "Jun", "Kemal", "Lena", "Mateo", "Nia", "Oskar", "Priya", "Quentin", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zoe"]  # fmt: skip
VERBS = ["repaired", "painted", "borrowed", "sold", "photographed", "planted", "cooked", "sketched", "returned", "rebuilt", "ordered", "found", "lost", "packed", "polished", "tuned", "framed", "wrapped", "carried", "sorted"]  # fmt: skip
ADJECTIVES = ["old", "blue", "heavy", "tiny", "wooden", "broken", "shiny", "antique", "folding", "spare", "hand-made", "second-hand", "green", "noisy", "fragile"]  # fmt: skip
NOUNS = ["bicycle", "kayak", "piano", "lantern", "bookshelf", "telescope", "violin", "tent", "sewing machine", "camera", "greenhouse", "canoe", "record player", "workbench", "aquarium", "quilt", "skateboard", "birdhouse", "typewriter", "harp"]  # fmt: skip
PLACES = ["at the flea market", "in the garage", "by the lake", "for the school fair", "at grandma's house", "in the community garden", "before the storm", "after the concert", "for a neighbour", "on the balcony", "at the harbour", "during the holidays"]  # fmt: skip


# --- the facts --------------------------------------------------------------------------------


def locomo_facts() -> list[dict]:
    with (LOCOMO / "facts.jsonl").open(encoding="utf-8") as stream:
        return [json.loads(line) for line in stream if line.strip()]


def locomo_questions() -> list[str]:
    with (LOCOMO / "queries.jsonl").open(encoding="utf-8") as stream:
        return [json.loads(line)["question"] for line in stream if line.strip()]


def diary(rng: random.Random) -> str:
    return (
        f"{rng.choice(NAMES)} {rng.choice(VERBS)} the {rng.choice(ADJECTIVES)} "
        f"{rng.choice(NOUNS)} {rng.choice(PLACES)}"
    )


def hand_written(n: int, seed: int = 21) -> list[str]:
    """n distinct fact texts from four sources with varied words."""
    from bench._recall_workspace import fact_texts
    from bench.upkeep import sentence

    rng = random.Random(seed)
    speakers = sorted({fact["speaker"] for fact in locomo_facts()})
    retold = [fact["text"] for fact in locomo_facts()]
    templated = iter(fact_texts(n, seed=seed))
    texts: dict[str, str] = {}
    tries = 0
    while len(texts) < n:
        # Turn about by tries, not by texts kept: a source that has run out of new texts (the
        # retold LoCoMo lines, past their names' combinations) must not hold the turn forever.
        source, tries = tries % 4, tries + 1
        if source == 0:
            text = rng.choice(retold)
            for speaker in speakers:
                text = text.replace(speaker, rng.choice(NAMES))
        elif source == 1:
            text = sentence(rng)
        elif source == 2:
            text = next(templated, None) or sentence(rng)  # a million outgrows the templates
        else:
            text = diary(rng)
        texts.setdefault(text.lower(), text)
    return list(texts.values())


def drop_in(root: Path, texts: list[str]) -> None:
    """The texts as fact lines in ada's monthly logs (2025-01 onwards, 1,000 a month)."""
    folder = root / "agents/ada/memory/log"
    folder.mkdir(parents=True, exist_ok=True)
    month = date(2025, 1, 1)
    for start in range(0, len(texts), 1000):
        lines = [
            f"- ({month + timedelta(days=i % 28)}) {text}\n"
            for i, text in enumerate(texts[start : start + 1000])
        ]
        (folder / f"{month:%Y-%m}.md").write_text("# Dropped in\n\n" + "".join(lines))
        month = (month + timedelta(days=32)).replace(day=1)


def base_store(root: Path) -> list[str]:
    """ada's 353 LoCoMo facts (profile and logs), as written before the drop-in."""
    folder = root / "agents/ada/memory"
    (folder / "log").mkdir(parents=True, exist_ok=True)
    by_month: dict[str, list[str]] = {}
    texts = []
    for fact in locomo_facts():
        by_month.setdefault(fact["date"][:7], []).append(f"- ({fact['date']}) {fact['text']}\n")
        texts.append(fact["text"])
    for month, lines in by_month.items():
        (folder / "log" / f"{month}.md").write_text("# Memory log\n\n" + "".join(lines))
    return texts
