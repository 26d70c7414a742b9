"""Reading Claude's memory files: CLAUDE.md instructions and Claude Code's MEMORY.md with the
topic files beside it.

Each bullet (`-`, `*`, `+` or `1.`) outside code blocks becomes one fact; prose, headings and
code are left out. CLAUDE.md bullets are lasting instructions (profile); MEMORY.md and its topic
files are dated memory (log). A bullet that starts with a date (`2026-03-01:` or
`(2026-03-01)`) keeps it; otherwise the fact is dated by the file's last change. MEMORY.md lines
that only link a topic file are skipped: that file is read itself.
"""

import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

from memstore.errors import InvalidFact
from memstore.facts.markdown import parse_date
from memstore.imports.base import Item, Skipped, Target, file_day, item_for, source

_BULLET = re.compile(r"\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(?P<text>.+?)\s*")
_DATED = re.compile(r"\(?(?P<day>\d{4}-\d{2}-\d{2})\)?\s*[:\-–—]?\s+(?P<text>.+)")
_LINK_ONLY = re.compile(r"\[[^\]]+\]\([^)]+\.md\)\s*(?:[:\-–—].*)?")
_FENCE = re.compile(r"\s*(```|~~~)")


def read_claude(path: Path, target: Target) -> Iterator[Item | Skipped]:
    """Facts from every CLAUDE.md and every memory folder (one holding MEMORY.md) under `path`."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*.md") if p.is_file())
    memory_dirs = {f.parent for f in files if f.name == "MEMORY.md"}
    for file in files:
        if file.name == "CLAUDE.md":
            yield from _bullets(file, path, target, tier="profile")
        elif file.parent in memory_dirs or file == path:
            yield from _bullets(file, path, target, tier="log")
        else:
            yield Skipped(source(file, path, 0), "not CLAUDE.md nor in a folder with MEMORY.md")


def _bullets(file: Path, root: Path, target: Target, *, tier: str) -> Iterator[Item | Skipped]:
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        yield Skipped(source(file, root, 0), f"unreadable file: {exc}")
        return
    default_day = file_day(file)
    in_code = False
    for number, raw in enumerate(text.splitlines(), start=1):
        if _FENCE.match(raw):
            in_code = not in_code
            continue
        match = _BULLET.fullmatch(raw)
        if in_code or not match:
            continue
        src = source(file, root, number)
        body = match["text"]
        if file.name == "MEMORY.md" and _LINK_ONLY.fullmatch(body):
            yield Skipped(src, "an index line linking a topic file (the file is read itself)")
            continue
        body, day = _dated(body, default_day)
        yield item_for(target, text=body, src=src, tier=tier, day=day)


def _dated(text: str, default: date) -> tuple[str, date]:
    if match := _DATED.fullmatch(text):
        try:
            return match["text"], parse_date(match["day"])
        except InvalidFact:
            pass
    return text, default
