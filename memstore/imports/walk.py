"""Reading a source folder safely, for every importer: which files are in it, their text, their
front matter, and the facts a Markdown body holds.

An import reads only what is inside the folder it was given. A symbolic link is never followed,
wherever it points (a link to a person's private file inside the same folder would copy it into
a bot's team-wide memory just as surely as one pointing outside), and a file is opened with
O_NOFOLLOW so a link swapped in after the listing is refused too. Hidden folders (`.git`,
`.dreaming`…) are not walked. Nothing here writes.
"""

import json
import os
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

from memstore.imports.base import Skipped, source

MAX_FILE_BYTES = 5_000_000

_BULLET = re.compile(r"(?P<indent>\s*)(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(?P<text>\S.*?)\s*")
_FENCE = re.compile(r"\s*(```|~~~)")
_HEADING = re.compile(r"\s*#{1,6}(\s|$)")
_FRONT = re.compile(r"(?P<key>[A-Za-z_][\w-]*):\s*(?P<value>.*)")
_RULE = re.compile(r"\s*([-*_])(\s*\1){2,}\s*")


def source_files(
    root: Path,
    *,
    suffix: str = ".md",
    prune: frozenset[str] = frozenset(),
    hidden: frozenset[str] = frozenset(),
    base: Path | None = None,
) -> tuple[list[Path], list[Skipped]]:
    """The files ending in `suffix` under `root` (sorted), and a Skipped line for every symbolic
    link met instead of being followed. `prune`: folder names not to walk into; `hidden`: the
    hidden folders that are walked (`.claude`); `base`: the import's folder, which sources are
    relative to (default `root`)."""
    base = base or root
    if root.is_symlink():
        root = root.resolve()
    if root.is_file():
        return [root], []
    found: list[Path] = []
    skipped: list[Skipped] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        for name in list(dirs):
            if (name.startswith(".") and name not in hidden) or name in prune:
                dirs.remove(name)
            elif (here / name).is_symlink():
                dirs.remove(name)
                skipped.append(_link(here / name, base))
        dirs.sort()
        for name in sorted(files):
            path = here / name
            if not name.endswith(suffix):
                continue
            if path.is_symlink():
                skipped.append(_link(path, base))
            elif path.is_file():
                found.append(path)
    return sorted(found), skipped


def _link(path: Path, root: Path) -> Skipped:
    target = Path(os.path.realpath(path))
    where = "inside the folder" if target.is_relative_to(root.resolve()) else "out of the folder"
    return Skipped(source(path, root, 0), f"a symbolic link ({where}): links are never followed")


def read_text(path: Path, root: Path) -> str | Skipped:
    """A file's UTF-8 text, or why it can't be read (never through a symbolic link)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        reason = "a symbolic link: links are never followed" if path.is_symlink() else str(exc)
        return Skipped(source(path, root, 0), f"unreadable file: {reason}")
    try:
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return Skipped(source(path, root, 0), f"unreadable file: {exc}")
    if len(data) > MAX_FILE_BYTES:
        return Skipped(source(path, root, 0), f"unreadable file: over {MAX_FILE_BYTES:,} bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return Skipped(source(path, root, 0), f"unreadable file: not UTF-8 ({exc.reason})")


def read_json(path: Path, root: Path) -> object | Skipped:
    """A JSON file's value, or why it can't be read."""
    text = read_text(path, root)
    if isinstance(text, Skipped):
        return text
    try:
        return json.loads(text)
    except ValueError as exc:
        return Skipped(source(path, root, 0), f"not valid JSON: {exc}")


def front_matter(lines: list[str]) -> tuple[dict[str, str], int]:
    """The `key: value` pairs of a YAML front matter block (quoted values unquoted, nested values
    ignored) and the index of the first body line; ({}, 0) when there is none."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    front: dict[str, str] = {}
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return front, i + 1
        if match := _FRONT.fullmatch(line.rstrip()):
            front[match["key"].lower()] = _unquote(match["value"].strip())
    return {}, 0


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            return str(json.loads(value))
        except ValueError:
            return value[1:-1]
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value


def body_facts(lines: list[str], start: int = 0) -> Iterator[tuple[int, str]]:
    """(line number, text) of each fact in a Markdown body: every bullet (a nested bullet is a
    fact of its own; continuation lines are joined on), and every paragraph of prose, joined
    into one line.

    Headings, code blocks, tables, HTML comments and rules are not facts. A paragraph or bullet
    too long for one fact is still yielded: the write path refuses it with the reason."""
    block: list[str] = []
    first = 0
    in_code = False
    in_comment = False
    for number, raw in enumerate(lines[start:], start=start + 1):
        line = raw.rstrip()
        if _FENCE.match(line) or in_code:
            in_code = in_code != bool(_FENCE.match(line))
            yield from _flush(block, first)
            block = []
            continue
        if in_comment or line.lstrip().startswith("<!--"):
            in_comment = "-->" not in line
            yield from _flush(block, first)
            block = []
            continue
        bullet = _BULLET.fullmatch(line)
        if not line.strip() or _HEADING.match(line) or _RULE.fullmatch(line) or "|" in line[:1]:
            yield from _flush(block, first)
            block = []
        elif bullet:
            yield from _flush(block, first)
            block, first = [f"- {bullet['text']}"], number
        else:
            if block and block[0].startswith("- ") and not line[:1].isspace():
                yield from _flush(block, first)  # only an indented line continues a bullet
                block = []
            if not block:
                first = number
            block.append(line.strip().removeprefix("> "))
    yield from _flush(block, first)


def _flush(block: list[str], first: int) -> Iterator[tuple[int, str]]:
    if block:
        text = " ".join(" ".join(block).removeprefix("- ").split())
        if text:
            yield first, text


def day_of(value: object) -> date | None:
    """The date in an ISO date or timestamp string (`2026-01-09`, `2026-01-09T10:00:00Z`), or
    a Unix time; None if there is none; raises ValueError for one that is not a real date."""
    if value is None or value == "":
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, UTC).date()
    text = str(value).strip()
    if not re.match(r"\d{4}-\d{2}-\d{2}", text):
        raise ValueError(f"{text[:40]!r} is not a date")
    return date.fromisoformat(text[:10])
