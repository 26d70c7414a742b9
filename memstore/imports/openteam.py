"""Reading an OpenTeam agent-data folder (or a Memory Console export's Markdown tree).

Both keep memory the same way: a folder of `profile.md` and `log/YYYY-MM.md` with one dated
fact per line. Where the folder sits says whose memory it is:

    agents/<bot>/memory/                       the bot's own memory
    memory/ (or the folder itself)             a single agent's folder: the bot's own memory
    user-memory/by-agent/<bot>/                OpenTeam's user memory (the person is --person)
    users/<person>/memory/by-agent/<bot>/      user memory of <person>
    projects/<slug>/memory/by-agent/<bot>/     project memory

Shards are one writer's files, so only the importing bot's own shards are read; the others are
skipped with the command that imports them. Legacy room memory is read-only and skipped.
"""

import re
from collections.abc import Iterator
from pathlib import Path

from memstore.facts.markdown import FactLine, parse_text
from memstore.facts.paths import locate
from memstore.imports.base import Item, Skipped, Target, source

_FILE = r"(?P<file>profile\.md|log/\d{4}-(0[1-9]|1[0-2])\.md)"
_USER_MEMORY = re.compile(rf"(?:.*/)?user-memory/by-agent/(?P<bot>[^/]+)/{_FILE}")
_PLAIN_MEMORY = re.compile(rf"(?:(?:.*/)?memory/)?{_FILE}")
_KEPT_META = ("type", "importance", "weight", "visibility", "pin")


def read_openteam(path: Path, target: Target) -> Iterator[Item | Skipped]:
    """Every fact line of the memory files under `path`, bound for the scope its folder names."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*.md") if p.is_file())
    for file in files:
        rel = file.name if file == path else file.relative_to(path).as_posix()
        where = _where(rel, target)
        if isinstance(where, str):
            yield Skipped(source(file, path, 0), where)
            continue
        yield from _facts(file, path, where)


def _where(rel: str, target: Target) -> dict | str:
    """The scope fields and tier file for a file, or why it is skipped."""
    if loc := locate(rel):
        shard = loc.shard
        if shard.scope.kind == "room":
            return "legacy room memory is read-only"
        if shard.bot != target.bot:
            return f"another bot's shard: import it with --bot {shard.bot}"
        fields = {"scope": shard.scope.kind, "profile": loc.tier_file == "profile"}
        if shard.scope.kind == "user":
            fields["person"] = shard.scope.name
        if shard.scope.kind == "project":
            fields["project"] = shard.scope.name
        return fields
    if match := _USER_MEMORY.fullmatch(rel):
        if match["bot"] != target.bot:
            return f"another bot's shard: import it with --bot {match['bot']}"
        if not target.person:
            return "user memory: name the person it is about with --person"
        return {"scope": "user", "person": target.person, "profile": match["file"] == "profile.md"}
    if match := _PLAIN_MEMORY.fullmatch(rel):
        return {"scope": "bot", "profile": match["file"] == "profile.md"}
    return "not a memory file (profile.md or log/YYYY-MM.md)"


def _facts(file: Path, root: Path, where: dict) -> Iterator[Item | Skipped]:
    try:
        lines = parse_text(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        yield Skipped(source(file, root, 0), f"unreadable file: {exc}")
        return
    profile = where.pop("profile")
    for number, line in enumerate(lines, start=1):
        src = source(file, root, number)
        if line.fact is None:
            if line.raw.lstrip().startswith(("- ", "* ")):
                yield Skipped(src, "a bullet that is not a dated fact line")
            continue
        yield Item(
            text=line.fact.body,
            src=src,
            tier=_tier(line.fact, profile),
            day=line.fact.day,
            meta={k: v for k, v in line.fact.meta.items() if k in _KEPT_META},
            **where,
        )


def _tier(fact: FactLine, profile: bool) -> str:
    if profile:
        return "profile"
    return fact.tag or "log"
