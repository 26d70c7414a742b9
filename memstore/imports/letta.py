"""Reading a Letta Code MemFS folder: the agent's git-backed memory, a tree of Markdown files
with YAML front matter (`description:`), where everything under `system/` is in the agent's
context on every turn and the rest is read when relevant (docs.letta.com, "MemFS").

Each file's bullets and short paragraphs become facts (front matter, headings and code do not):
`system/` files as lasting profile facts, the rest as log facts. `human.md` holds what the agent
knows about its human: with --person it goes to that person's user memory. Everything else goes
to the bot's own memory (or --project's). `skills/` holds skills, not memory, and is not read.
A fact is dated by the last commit that changed its file when the folder is a git repository
(`git log`), else by the file's last change.
"""

import subprocess
from datetime import date
from pathlib import Path

from memstore.imports.base import Found, Skipped, Target, file_day, item_for, source
from memstore.imports.walk import body_facts, front_matter, read_text, source_files

GIT_TIMEOUT = 30


def read_letta(path: Path, target: Target) -> list[Found]:
    """Facts from every memory file of a MemFS folder."""
    root = path.resolve() if path.is_symlink() else path
    if not target.bot:
        return [Skipped(source(root, root, 0), "a Letta agent's memory: name its bot with --bot")]
    files, found = source_files(root, prune=frozenset({"skills"}))
    found = list(found)
    days = git_days(root) if root.is_dir() else {}
    for file in files:
        text = read_text(file, root)
        if isinstance(text, Skipped):
            found.append(text)
            continue
        rel = file.relative_to(root).as_posix() if file != root else file.name
        lines = text.splitlines()
        _, start = front_matter(lines)
        tier = "profile" if rel.startswith("system/") else "log"
        scope = "user" if file.name == "human.md" and target.person else None
        if scope is None:
            scope = "project" if target.project else "bot"
        day = days.get(rel) or file_day(file)
        for number, body in body_facts(lines, start):
            found.append(
                item_for(
                    target,
                    scope=scope,
                    text=body,
                    src=source(file, root, number),
                    tier=tier,
                    day=day,
                )
            )
    return found


def git_days(root: Path) -> dict[str, date]:
    """The day each file under `root` last changed in its git history ({} when `root` is not
    in a repository or git can't tell). Only reads: `git log`, with hooks and fsmonitor off."""
    command = [
        "git",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.quotePath=false",
        "-C",
        str(root),
        "log",
        "--relative",
        "--no-renames",
        "--pretty=format:@%as",
        "--name-only",
        "--",
        ".",
    ]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=GIT_TIMEOUT, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    if done.returncode != 0:
        return {}
    days: dict[str, date] = {}
    current: date | None = None
    for line in done.stdout.splitlines():
        if line.startswith("@"):
            try:
                current = date.fromisoformat(line[1:])
            except ValueError:
                current = None
        elif line and current:
            days.setdefault(line, current)  # newest first: the first date is the last change
    return days
