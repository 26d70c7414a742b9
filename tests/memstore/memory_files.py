"""Helpers for tests: write memory files the way a person or a bot would, as Markdown."""

from pathlib import Path

HEADER = "# Memory\n\n"


def shard_dir(kind: str, name: str, bot: str) -> str:
    """The folder of `bot`'s shard in a scope, relative to MEMORY_ROOT."""
    if kind == "bot":
        return f"agents/{name}/memory"
    top = {"user": "users", "project": "projects", "room": "rooms"}[kind]
    return f"{top}/{name}/memory/by-agent/{bot}"


def write_memory(root: Path, rel: str, *lines: str) -> Path:
    """Write a memory file (header plus the given lines) at `rel` under the root."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + "".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def profile(root: Path, kind: str, name: str, *lines: str, bot: str = "ada") -> Path:
    """Write a shard's profile.md."""
    return write_memory(root, f"{shard_dir(kind, name, bot)}/profile.md", *lines)


def log(root: Path, kind: str, name: str, month: str, *lines: str, bot: str = "ada") -> Path:
    """Write a shard's log/YYYY-MM.md."""
    return write_memory(root, f"{shard_dir(kind, name, bot)}/log/{month}.md", *lines)
