"""Importers: bring memory people already have into Memory Console.

    base.py           Item/Skipped, the import run through the bot's write path, the report
    openteam.py       an OpenTeam agent-data folder (or an export's Markdown tree)
    claude.py         CLAUDE.md, and Claude Code's MEMORY.md with its topic files
    mem0.py           a Mem0 export (the JSON of get_all)
    basic_memory.py   a Basic Memory folder (observations; relations noted)

Readers only read; every write goes through `memstore.calls.actions.bot_remember`, so the rules are
the API's. `manage.py import <kind> PATH --bot SLUG` is the front door.
"""

from collections.abc import Callable, Iterator
from pathlib import Path

from memstore.imports.base import ImportReport, Item, Skipped, Target, import_items
from memstore.imports.basic_memory import read_basic_memory
from memstore.imports.claude import read_claude
from memstore.imports.mem0 import read_mem0
from memstore.imports.openteam import read_openteam

READERS: dict[str, Callable[[Path, Target], Iterator[Item | Skipped]]] = {
    "openteam": read_openteam,
    "claude": read_claude,
    "mem0": read_mem0,
    "basic-memory": read_basic_memory,
}
IMPORT_KINDS = tuple(READERS)

__all__ = ["IMPORT_KINDS", "READERS", "ImportReport", "Item", "Skipped", "Target", "import_run"]


def import_run(
    *,
    kind: str,
    path: Path,
    target: Target,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Read `path` as `kind` and save what it holds as `target.bot` (nothing when dry_run)."""
    found = READERS[kind](path, target)
    return import_items(found, bot=target.bot, dry_run=dry_run, progress=progress)
