"""Export: a zip of memory files as they are on disk, plus `facts.jsonl` with one line of
metadata per fact (id, date, text, tier, scope, shard, file and line, metadata).

The zip keeps MEMORY_ROOT's layout, so unzipped it is a memory folder again (and
`manage.py import openteam` reads it back). What goes in is chosen by `export_files`: one bot's
memory (its own and every shard it wrote), one person's user memory (every bot's shard), or
everything. Files are read straight from disk — the files are the truth, no index involved.
A bot exporting over the API gets its own memory without hidden facts, which bots never see.
"""

import json
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

from memstore.errors import InvalidName
from memstore.facts.markdown import Line, parse_text, remove_lines, render
from memstore.facts.paths import (
    Scope,
    all_scopes,
    check_person,
    check_slug,
    locate,
    memory_root,
    scope_shards,
)
from memstore.facts.paths import shard_files as files_of_shard

FACTS_FILE = "facts.jsonl"


@dataclass(frozen=True, slots=True)
class ExportSummary:
    """How many files and facts went into an export."""

    files: int
    facts: int


def export_files(
    *, bot: str | None = None, person: str | None = None, everything: bool = False
) -> list[str]:
    """Relative paths of the memory files in one selection: exactly one of bot, person or
    everything (raises InvalidName otherwise)."""
    if sum((bot is not None, person is not None, everything)) != 1:
        raise InvalidName("Choose exactly one of a bot, a person or everything to export.")
    root = memory_root()
    if bot is not None:
        check_slug(bot)
        scopes = [s for s in all_scopes(root) if s.kind != "bot" or s.name == bot]
        return [rel for scope in scopes for rel in files_of_shard(root, scope.shard(bot))]
    if person is not None:
        return _files(root, [Scope("user", check_person(person))])
    return _files(root, all_scopes(root))


def _files(root: Path, scopes: list[Scope]) -> list[str]:
    return [
        rel
        for scope in scopes
        for shard in scope_shards(root, scope)
        for rel in files_of_shard(root, shard)
    ]


def bot_own_files(*, bot: str) -> list[str]:
    """The files of a bot's own memory (what GET /api/v1/export returns)."""
    return files_of_shard(memory_root(), Scope("bot", check_slug(bot)).shard(bot))


def memory_export(
    *,
    files: list[str],
    out: BinaryIO,
    include_hidden: bool = True,
    raw: Iterable[str] = (),
    written: Mapping[str, bytes] | None = None,
) -> ExportSummary:
    """Write a zip of these files and their facts' metadata to `out`; `raw`: more files
    (relative paths: histories, notes) copied byte for byte, not read for facts; `written`:
    files made for the export (name -> bytes)."""
    root = memory_root()
    facts = 0
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for rel in raw:
            info = zipfile.ZipInfo(rel, date_time=_stamp(root / rel))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, (root / rel).read_bytes())
        for name, data in (written or {}).items():
            archive.writestr(name, data)
        records: list[str] = []
        for rel in files:
            path = root / rel
            data = path.read_bytes()
            try:
                lines = parse_text(data.decode("utf-8"))
            except UnicodeDecodeError:
                lines = None  # kept byte for byte; its facts are not readable, so not listed
            if lines is not None and not include_hidden:
                lines = _without_hidden(lines)
                data = render(lines).encode("utf-8")
            info = zipfile.ZipInfo(rel, date_time=_stamp(path))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
            for number, line in enumerate(lines or [], start=1):
                if line.fact:
                    records.append(json.dumps(_record(rel, number, line), ensure_ascii=False))
        facts = len(records)
        archive.writestr(FACTS_FILE, "".join(r + "\n" for r in records))
    return ExportSummary(files=len(files), facts=facts)


def _without_hidden(lines: list[Line]) -> list[Line]:
    hidden = {
        i
        for i, line in enumerate(lines)
        if line.fact and line.fact.meta.get("visibility") == "hidden"
    }
    return remove_lines(lines, hidden) if hidden else lines


def _record(rel: str, number: int, line: Line) -> dict:
    fact = line.fact
    assert fact is not None
    loc = locate(rel)
    assert loc is not None
    return {
        "id": fact.identity,
        "date": fact.day.isoformat(),
        "text": fact.text,
        "tier": "profile" if loc.tier_file == "profile" else (fact.tag or "log"),
        "scope": loc.shard.scope.kind,
        "scope_name": loc.shard.scope.name,
        "bot": loc.shard.bot,
        "file": rel,
        "line": number,
        "visibility": fact.meta.get("visibility", "context"),
        "meta": fact.meta,
    }


def _stamp(path: Path) -> tuple[int, int, int, int, int, int]:
    moment = datetime.fromtimestamp(max(path.stat().st_mtime, 315532800))  # zip starts in 1980
    return moment.timetuple()[:6]
