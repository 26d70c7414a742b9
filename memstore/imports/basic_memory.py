"""Reading a Basic Memory folder: Markdown notes whose observations become facts.

An observation is a bullet `- [category] text #tag (context)`. It becomes a fact reading
`<note title>: <text>`, typed by its category when the category names one of ours (a decision,
a preference…; anything else is a plain fact), with the category and tags kept as metadata.
Facts are dated by the note's `created`/`date` front matter, else by the file's last change.
Relations (`- relates_to [[Other note]]`) are noted as skipped: links between facts are not
stored yet.
"""

import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

from memstore.errors import InvalidFact
from memstore.facts.markdown import parse_date
from memstore.imports.base import Item, Skipped, Target, file_day, item_for, source
from memstore.vocabulary import FACT_TYPES

# A category is a word or two (a task checkbox `- [x] done` is not an observation).
_OBSERVATION = re.compile(r"\s*[-*]\s+\[(?P<category>[A-Za-z][\w -]{1,40})\]\s+(?P<text>.+?)\s*")
_RELATION = re.compile(r"\s*[-*]\s+(?P<kind>[A-Za-z_][\w-]*)\s+\[\[(?P<target>[^\]]+)\]\]\s*")
_TAG = re.compile(r"(?:^|\s)#([\w/-]+)")
_FRONT = re.compile(r"(?P<key>[A-Za-z_]+):\s*(?P<value>.*)")
_SYNONYMS = {
    "preferences": "preference",
    "decisions": "decision",
    "lesson": "learning",
    "lessons": "learning",
    "insight": "learning",
    "background": "context",
}


def read_basic_memory(path: Path, target: Target) -> Iterator[Item | Skipped]:
    """Observations of every note under `path` (relations are noted, not saved)."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*.md") if p.is_file())
    for file in files:
        try:
            lines = file.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            yield Skipped(source(file, path, 0), f"unreadable file: {exc}")
            continue
        front, start = _front_matter(lines)
        title = front.get("title") or file.stem
        day = _day(front) or file_day(file)
        for number, raw in enumerate(lines[start:], start=start + 1):
            yield from _entry(raw, source(file, path, number), title, day, target)


def _entry(raw: str, src: str, title: str, day: date, target: Target) -> Iterator[Item | Skipped]:
    if match := _OBSERVATION.fullmatch(raw):
        category = match["category"].strip().lower()
        tags = _TAG.findall(match["text"])
        text = _TAG.sub("", match["text"]).strip()
        meta = {"type": _type(category), "category": re.sub(r"[^\w.:-]+", "_", category)[:200]}
        if tags:
            meta["tags"] = ",".join(tags)[:200]
        yield item_for(target, text=f"{title}: {text}", src=src, day=day, meta=meta)
    elif match := _RELATION.fullmatch(raw):
        yield Skipped(src, "a relation: links between facts are not stored yet")


def _type(category: str) -> str:
    category = _SYNONYMS.get(category, category)
    return category if category in FACT_TYPES else "fact"


def _front_matter(lines: list[str]) -> tuple[dict[str, str], int]:
    if not lines or lines[0].strip() != "---":
        return {}, 0
    front: dict[str, str] = {}
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return front, i + 1
        if match := _FRONT.fullmatch(line.strip()):
            front[match["key"].lower()] = match["value"].strip().strip("'\"")
    return {}, 0


def _day(front: dict[str, str]) -> date | None:
    for key in ("created", "date"):
        if value := front.get(key, "")[:10]:
            try:
                return parse_date(value)
            except InvalidFact:
                continue
    return None
