"""Shared by the import tests: running the command, reading the memory folder back."""

import os
from datetime import date, datetime
from io import StringIO
from pathlib import Path

from django.core.management import call_command


def write(path: Path, text: str, day: date | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if day:
        stamp = datetime(day.year, day.month, day.day, 12).timestamp()
        os.utime(path, (stamp, stamp))
    return path


def run_import(*args: str) -> str:
    out = StringIO()
    call_command("import", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def md_tree(root: Path) -> dict[str, str]:
    """Every memory file (Markdown) under the root, by relative path."""
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*.md"))}


def facts_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- (")]


def all_facts(root: Path) -> dict[str, list[str]]:
    return {rel: facts_of(text) for rel, text in md_tree(root).items() if facts_of(text)}
