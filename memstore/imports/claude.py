"""Reading Claude Code's memory as it is laid out on disk: `~/.claude` (or any folder of it), or a
repository with its CLAUDE.md files.

    ~/.claude/CLAUDE.md, ~/.claude/rules/*.md          the user's instructions, every project
    <repo>/CLAUDE.md, <repo>/.claude/CLAUDE.md, <repo>/.claude/rules/*.md, <repo>/<dir>/CLAUDE.md
                                                        a project's instructions
    <repo>/CLAUDE.local.md                              one person's instructions for a project
    ~/.claude/projects/<project>/memory/MEMORY.md       auto memory: the index, one line a topic
    ~/.claude/projects/<project>/memory/<topic>.md      one memory: front matter `name`,
                                                        `description`, `type` (user, feedback,
                                                        project, reference), then the body

`<project>` is the project's path with every `/` turned into `-` (`-home-sam-apollo`);
`--map-project -home-sam-apollo=apollo` sends its memory to a project of ours, `--project` sends
everything there; unmapped memory goes to the bot's own memory. Instruction bullets are lasting
(profile) facts; an `@path` import line is reported, not followed. A topic file holds one memory: its
prose is one fact when it fits in one (else each paragraph is), each bullet is a fact of its
own, dated by a date written at its start (`(2026-03-04) …`, `2026-03-04: …`), else by the
file; its description is the fact when the body is empty. `user` and `feedback` memories
are lasting, `feedback` ones preferences; `user` ones go to --person's user memory when given.
A MEMORY.md line that only links a topic file is skipped (the file is read itself); other
bullets in it are facts. Transcripts (`*.jsonl`), settings and todos are not memory.
"""

import re
from datetime import date
from pathlib import Path

from memstore.errors import InvalidFact
from memstore.facts.markdown import MAX_TEXT_CHARS, parse_date
from memstore.imports.base import Found, Skipped, Target, file_day, item_for, source
from memstore.imports.walk import body_facts, front_matter, read_text, source_files

_DATED = re.compile(r"\(?(?P<day>\d{4}-\d{2}-\d{2})\)?\s*[:\-–—]?\s+(?P<text>.+)")
_LINK_ONLY = re.compile(r"\[[^\]]+\]\([^)]+\.md\)\s*(?:[:\-–—].*)?")
_BULLET_START = re.compile(r"\s*(?:[-*+]|\d{1,3}[.)])\s")
_IMPORT = re.compile(r"\s*@[~\w./-]+\s*")
_TYPES = {
    "user": ("profile", None),
    "feedback": ("profile", "preference"),
    "project": ("log", None),
    "reference": ("log", "context"),
}


def read_claude(path: Path, target: Target) -> list[Found]:
    """Facts from every instruction file and auto-memory folder under `path`."""
    root = path.resolve() if path.is_symlink() else path
    if not target.bot:
        return [Skipped(source(root, root, 0), "Claude's memory: name the bot with --bot")]
    files, found = source_files(root, hidden=frozenset({".claude"}))
    found = list(found)
    memory_dirs = {f.parent for f in files if f.name == "MEMORY.md"}
    for file in files:
        text = read_text(file, root)
        if isinstance(text, Skipped):
            found.append(text)
            continue
        kind = _kind(file, root, memory_dirs)
        if kind is None:
            found.append(
                Skipped(
                    source(file, root, 0), "not CLAUDE.md, a rules file, nor in a memory folder"
                )
            )
        elif kind == "topic":
            found.extend(_topic(file, root, text, _scope(file, root, target)))
        else:
            found.extend(_bullets(file, root, text, _scope(file, root, target, kind), kind))
    return found


def _kind(file: Path, root: Path, memory_dirs: set[Path]) -> str | None:
    parts = file.relative_to(root).parts if file != root else (file.name,)
    if file.name == "MEMORY.md":
        return "index"
    if file.parent in memory_dirs or (parts[-2:-1] == ("memory",) and "projects" in parts[:-3]):
        return "topic"
    if file.name == "CLAUDE.local.md":
        return "local"
    rules = parts[-2:-1] == ("rules",) and (len(parts) == 2 or parts[-3] == ".claude")
    if file.name == "CLAUDE.md" or rules:
        return "instructions"
    return None


def _scope(file: Path, root: Path, target: Target, kind: str = "topic") -> Target:
    """The target for one file: its Claude project's mapping; --person for personal files."""
    project = target.project
    rel = file.relative_to(root).parts if file != root else ()
    if "projects" in rel[:-1]:
        project = target.projects.get(rel[rel.index("projects") + 1], project)
    return Target(bot=target.bot, person=target.person, project=project)


def _topic(file: Path, root: Path, text: str, where: Target) -> list[Found]:
    lines = text.splitlines()
    front, start = front_matter(lines)
    kind = front.get("type", "")
    tier, fact_type = _TYPES.get(kind, ("log", None))
    facts = _topic_facts(lines, start)
    if not facts and front.get("description"):
        facts = [(max(start - 1, 1), front["description"])]
    scope = "user" if kind == "user" and where.person else ("project" if where.project else "bot")
    default_day = file_day(file)
    found: list[Found] = []
    for number, text in facts:
        body, day = _dated(text, default_day)
        found.append(
            item_for(
                where,
                scope=scope,
                text=body,
                src=source(file, root, number),
                tier=tier,
                day=day,
                meta={"type": fact_type} if fact_type else {},
            )
        )
    return found


def _topic_facts(lines: list[str], start: int) -> list[tuple[int, str]]:
    """A topic file's facts: its prose is one memory (one fact when it fits, the rule and its
    **Why:**), each bullet one of its own (a list of dated events is many facts, not one)."""
    facts = list(body_facts(lines, start))
    bullets = [(n, text) for n, text in facts if _BULLET_START.match(lines[n - 1])]
    prose = [(n, text) for n, text in facts if (n, text) not in bullets]
    joined = " ".join(text for _, text in prose)
    if len(prose) > 1 and len(joined) <= MAX_TEXT_CHARS:
        prose = [(prose[0][0], joined)]
    return sorted(prose + bullets)


def _bullets(file: Path, root: Path, text: str, where: Target, kind: str) -> list[Found]:
    found: list[Found] = []
    default_day = file_day(file)
    scope = "user" if kind == "local" and where.person else ("project" if where.project else "bot")
    tier = "log" if kind == "index" else "profile"
    for number, raw in enumerate(text.splitlines(), start=1):
        src = source(file, root, number)
        if kind != "index" and _IMPORT.fullmatch(raw):
            found.append(
                Skipped(src, "an @import of another file: not followed (import that file itself)")
            )
    lines = text.splitlines()
    for number, body in body_facts(lines):
        src = source(file, root, number)
        if not _BULLET_START.match(lines[number - 1]):
            continue  # prose in instructions and in the index is documentation, not a fact
        if kind == "index" and _LINK_ONLY.fullmatch(body):
            found.append(
                Skipped(src, "an index line linking a topic file (the file is read itself)")
            )
            continue
        body, day = _dated(body, default_day)
        found.append(item_for(where, scope=scope, text=body, src=src, tier=tier, day=day))
    return found


def _dated(text: str, default: date) -> tuple[str, date]:
    if match := _DATED.fullmatch(text):
        try:
            return match["text"], parse_date(match["day"])
        except InvalidFact:
            pass
    return text, default
