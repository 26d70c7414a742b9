"""Reading a Basic Memory folder: Markdown notes whose observations become facts and whose
relations become links between them.

A note is a file with front matter (`title`, `type`, `permalink`, `tags`, `created`…), then
observations, bullets `- [category] text #tag (context)`, and relations, bullets
`- relation_type [[Target note]]` (Basic Memory's format docs). An observation becomes a fact
reading `<note title>: <text>`, typed by its category when the category names one of ours (a
decision, a preference…; anything else is a plain fact), with the category and tags kept as
metadata. A relation links the note's first fact to the target note's first fact
(`memstore.store.links`), its kind mapped onto ours (`relates_to` → related_to, `depends_on`,
`references`/`links_to`, `supersedes`, `caused_by`, `leads_to`…; others are related_to). The
target is found by title or permalink; a target outside the import is reported. Facts are
dated by the note's `created`/`date` front matter, else by the file's last change.
"""

import re
from datetime import date
from pathlib import Path

from memstore.imports.base import (
    Found,
    Relation,
    Skipped,
    Target,
    file_day,
    item_for,
    meta_value,
    source,
)
from memstore.imports.walk import day_of, front_matter, read_text, source_files
from memstore.vocabulary import FACT_TYPES, LINK_KINDS

# A category is a word or two (a task checkbox `- [x] done` is not an observation).
_OBSERVATION = re.compile(r"\s*[-*]\s+\[(?P<category>[A-Za-z][\w -]{1,40})\]\s+(?P<text>.+?)\s*")
_RELATION = re.compile(r"\s*[-*]\s+(?P<kind>[A-Za-z_][\w-]*)\s+\[\[(?P<target>[^\]]+)\]\]\s*")
# A tag runs to the next space: cut at its first other character, a key written as a tag
# would leave its head in the tags and its tail in the text, each too short to be recognised.
_TAG = re.compile(r"(?:^|\s)#([^\s#]*[\w/-])")
_SYNONYMS = {
    "preferences": "preference",
    "decisions": "decision",
    "lesson": "learning",
    "lessons": "learning",
    "insight": "learning",
    "background": "context",
}
_KINDS = {
    "relates_to": "related_to",
    "related": "related_to",
    "links_to": "references",
    "mentions": "references",
    "refers_to": "references",
    "requires": "depends_on",
    "replaces": "supersedes",
    "example_of": "exemplifies",
    "causes": "leads_to",
    "validated_by": "validates",
}


def read_basic_memory(path: Path, target: Target) -> list[Found]:
    """Observations of every note under `path`, and their relations."""
    root = path.resolve() if path.is_symlink() else path
    if not target.bot:
        return [Skipped(source(root, root, 0), "a Basic Memory folder: name the bot with --bot")]
    files, found = source_files(root)
    found = list(found)
    notes: list[tuple[Path, str, list[str], int, date, str]] = []
    names: dict[str, str] = {}
    for file in files:
        text = read_text(file, root)
        if isinstance(text, Skipped):
            found.append(text)
            continue
        lines = text.splitlines()
        front, start = front_matter(lines)
        title = front.get("title") or file.stem
        try:
            day = _day(front) or file_day(file)
        except ValueError as exc:
            found.append(Skipped(source(file, root, 2), f"an invalid date in front matter: {exc}"))
            day = file_day(file)
        key = title.strip().lower()
        for name in (title, front.get("permalink", ""), file.stem):
            if name:
                names.setdefault(name.strip().lower(), key)
        notes.append((file, title, lines, start, day, key))
    for file, title, lines, start, day, key in notes:
        for number, raw in enumerate(lines[start:], start=start + 1):
            found.extend(_entry(raw, source(file, root, number), title, day, key, names, target))
    return found


def _entry(
    raw: str, src: str, title: str, day: date, key: str, names: dict[str, str], target: Target
) -> list[Found]:
    if match := _OBSERVATION.fullmatch(raw):
        category = match["category"].strip().lower()
        tags = _TAG.findall(match["text"])
        text = _TAG.sub("", match["text"]).strip()
        meta = {"type": _type(category), "category": meta_value(category)}
        if tags:
            meta["tags"] = meta_value(",".join(tags))
        return [
            item_for(target, text=f"{title}: {text}", src=src, day=day, meta=meta, key=key, raw=raw)
        ]
    if match := _RELATION.fullmatch(raw):
        wanted = match["target"].split("|")[0].strip().lower()
        other = names.get(wanted)
        if other is None:
            return [Skipped(src, "a relation to a note that is not in this folder")]
        kind = match["kind"].lower()
        kind = kind if kind in LINK_KINDS else _KINDS.get(kind, "related_to")
        return [Relation(src=src, source=key, kind=kind, target=other)]
    return []


def _type(category: str) -> str:
    category = _SYNONYMS.get(category, category)
    return category if category in FACT_TYPES else "fact"


def _day(front: dict[str, str]) -> date | None:
    for key in ("created", "date"):
        if value := front.get(key, ""):
            return day_of(value)
    return None
