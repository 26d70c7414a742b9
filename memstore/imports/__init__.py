"""Importers: bring memory people already have into Memory Console, as each tool writes it.

    base.py           what readers find (Item, Skipped, Agent, Join, Relation) and the report
    walk.py           reading a source folder safely: no symbolic links, front matter, bodies
    run.py            the import run: who must exist, every fact through the write path, links
    openteam.py       an OpenTeam agent-data folder (or a Memory Console export's Markdown tree)
    letta.py          a Letta Code MemFS folder (git-backed Markdown; system/ always in context)
    claude.py         Claude Code: ~/.claude (auto-memory, CLAUDE.md) or a repository's CLAUDE.md
    mem0.py           a Mem0 get_all / export JSON
    basic_memory.py   a Basic Memory folder (observations, and relations as links)
    chat.py           a chat history through summarize (memstore.learning.summarize)

Readers only read; every write goes through `memstore.store.in_room.remember_in_room`, so the rules are
the API's. `manage.py import <kind> PATH` is the front door.
"""

from collections.abc import Callable, Iterable
from pathlib import Path

from memstore.imports.base import Found, ImportReport, Item, Options, Skipped, Target
from memstore.imports.basic_memory import read_basic_memory
from memstore.imports.claude import read_claude
from memstore.imports.letta import read_letta
from memstore.imports.mem0 import read_mem0
from memstore.imports.openteam import read_openteam
from memstore.imports.run import import_items

READERS: dict[str, Callable[[Path, Target], Iterable[Found]]] = {
    "openteam": read_openteam,
    "letta": read_letta,
    "claude": read_claude,
    "mem0": read_mem0,
    "basic-memory": read_basic_memory,
}
IMPORT_KINDS = (*READERS, "chat")

__all__ = [
    "IMPORT_KINDS",
    "READERS",
    "ImportReport",
    "Item",
    "Options",
    "Skipped",
    "Target",
    "import_run",
]


def import_run(
    *,
    kind: str,
    path: Path,
    target: Target,
    options: Options | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Read `path` as `kind` and save what it holds (nothing when options.dry_run)."""
    found = READERS[kind](path, target)
    return import_items(found, options=options or Options(), progress=progress)
