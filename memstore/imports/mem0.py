"""Reading a Mem0 export: the JSON `get_all` returns (a list of memories, or `{"results": [...]}`).

Each memory's `memory` text becomes one fact, dated by `created_at`. A memory with a `user_id`
is about that person and goes to their user memory: the user id is the person's name unless
`--map-user UID=PERSON` (or `--person`, for all of them) says otherwise. A memory without one is
the bot's own (or the `--project`'s, when given). Categories are kept as metadata; one that
names preferences makes the fact a preference. The source line is where the memory's id (or
its entry) stands in the file.
"""

import json
import re
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path

from memstore.errors import InvalidName
from memstore.facts.paths import check_person
from memstore.imports.base import Item, Skipped, Target, source

_META_SAFE = re.compile(r"[^A-Za-z0-9_,.:-]+")


def read_mem0(path: Path, target: Target) -> Iterator[Item | Skipped]:
    """One item per memory in the export (or why it is skipped)."""
    try:
        raw = path.read_text(encoding="utf-8")
        data = json.loads(raw)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        yield Skipped(source(path, path, 0), f"not a Mem0 JSON export: {exc}")
        return
    entries = data.get("results", data.get("memories")) if isinstance(data, dict) else data
    if not isinstance(entries, list):
        yield Skipped(source(path, path, 0), "not a Mem0 export: no list of memories")
        return
    for number, entry in enumerate(entries, start=1):
        src = source(path, path, _line_of(raw, entry, number))
        if not isinstance(entry, dict) or not str(entry.get("memory") or "").strip():
            yield Skipped(src, "an entry without memory text")
            continue
        yield _item(entry, src, target)


def _item(entry: dict, src: str, target: Target) -> Item | Skipped:
    meta: dict[str, str] = {}
    categories = [str(c) for c in entry.get("categories") or [] if str(c).strip()]
    if categories:
        meta["category"] = _META_SAFE.sub("_", ",".join(categories))[:200]
        if any("preference" in c.lower() for c in categories):
            meta["type"] = "preference"
    fields = {"text": str(entry["memory"]).strip(), "src": src, "day": _day(entry), "meta": meta}
    if target.project:
        return Item(scope="project", project=target.project, **fields)
    user = str(entry.get("user_id") or "")
    if not user:
        return Item(scope="bot", **fields)
    person = target.people.get(user) or target.person or user
    try:
        check_person(person)
    except InvalidName:
        return Skipped(src, f"user id {user!r} is not a person's name: map it with --map-user")
    return Item(scope="user", person=person, **fields)


def _day(entry: dict) -> date | None:
    for key in ("created_at", "updated_at"):
        value = entry.get(key)
        if isinstance(value, str) and value:
            try:
                return datetime.fromisoformat(value.replace("Z", "+00:00")).date()
            except ValueError:
                continue
    return None


def _line_of(raw: str, entry: object, number: int) -> int:
    if isinstance(entry, dict) and entry.get("id"):
        at = raw.find(json.dumps(str(entry["id"])))
        if at >= 0:
            return raw.count("\n", 0, at) + 1
    return number
