"""What happened to memory, read back from the shards' `history.jsonl` files for people.

This module owns reading history *for display*: the newest changes across many shards (tail
reads, so a long history costs no more than a short one), one shard's history a page at a time
(newest first, paged by byte offset), who last wrote a fact (an incremental per-file cache,
because history files only grow), and finding one recorded removal so it can be restored.
It never writes history (`memstore.facts.history` appends; services and the index sync decide what).
"""

import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from memstore.facts.history import Change, change_parse, history_path
from memstore.facts.paging import Page
from memstore.facts.paths import Shard, all_scopes, scope_shards

_CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class ShardChange:
    """A recorded change with the shard it belongs to and where it sits in that history file."""

    shard: Shard
    change: Change
    offset: int  # byte offset of the line in history.jsonl: a stable handle for restore


def lines_backwards(path: Path, end: int | None) -> Iterable[tuple[int, bytes]]:
    """(offset, line) pairs of a file's non-blank lines, last first (from byte `end` if given)."""
    # Fixed-size chunks from the end: the cost depends on how much is read, not on the file size.
    try:
        with open(path, "rb") as handle:
            yield from _backwards(handle, end)
    except FileNotFoundError:
        return


def _backwards(handle, end: int | None) -> Iterable[tuple[int, bytes]]:
    position = os.fstat(handle.fileno()).st_size if end is None else end
    tail = b""
    while position > 0:
        start = max(0, position - _CHUNK)
        handle.seek(start)
        block = handle.read(position - start) + tail
        position = start
        lines = block.split(b"\n")
        # The first piece may be the end of a line that began in an earlier chunk.
        tail = lines.pop(0) if start > 0 else b""
        offset = start + len(tail) + (1 if start > 0 else 0)
        starts = []
        for line in lines:
            starts.append(offset)
            offset += len(line) + 1
        for line_start, line in zip(reversed(starts), reversed(lines), strict=True):
            if line.strip():
                yield line_start, line


def shard_history_page(
    *, root: Path, shard: Shard, before: int | None = None, limit: int = 50, removed_only=False
) -> Page[ShardChange]:
    """One shard's changes, newest first, `limit` at a time (optionally only removals)."""
    items: list[ShardChange] = []
    path = history_path(root, shard)
    for offset, line in lines_backwards(path, before):
        if len(items) == limit:
            return Page(items=items, before=items[-1].offset)
        change = change_parse(line)
        if change is None or (removed_only and change.op != "remove"):
            continue
        items.append(ShardChange(shard=shard, change=change, offset=offset))
    return Page(items=items, before=None)


def changes_recent(*, root: Path, shards: Iterable[Shard], limit: int = 20) -> list[ShardChange]:
    """The newest `limit` changes across these shards, newest first (reads only their tails)."""
    found: list[ShardChange] = []
    for shard in shards:
        found += shard_history_page(root=root, shard=shard, limit=limit).items
    found.sort(key=lambda item: item.change.at, reverse=True)
    return found[:limit]


def change_at(*, root: Path, shard: Shard, offset: int) -> Change | None:
    """The change recorded at this byte offset of a shard's history, or None."""
    path = history_path(root, shard)
    try:
        with open(path, "rb") as handle:
            if offset < 0 or offset >= os.fstat(handle.fileno()).st_size:
                return None
            handle.seek(offset)
            if offset > 0:
                handle.seek(offset - 1)
                if handle.read(1) != b"\n":
                    return None
            return change_parse(handle.readline())
    except FileNotFoundError:
        return None


def workspace_shards(root: Path) -> list[Shard]:
    """Every shard on disk, across all scopes."""
    return [shard for scope in all_scopes(root) for shard in scope_shards(root, scope)]


@dataclass(frozen=True, slots=True)
class Provenance:
    """Who last added or changed a fact in one shard, and how."""

    by: str
    via: str
    at: str


class _WriterCache:
    # Per history file: its inode, how many bytes were read, and fact_id -> last writer.
    # History files are append-only, so each request reads only what was appended since.
    def __init__(self) -> None:
        # The writers of removed facts are kept aside: a restore gives the fact its author back.
        self._files: dict[str, tuple[int, int, dict[str, Provenance], dict[str, Provenance]]] = {}
        self._lock = threading.Lock()

    def lookup(self, path: Path) -> dict[str, Provenance]:
        key = str(path)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            self._files.pop(key, None)
            return {}
        with self._lock:
            inode, size, known, gone = self._files.get(key, (st.st_ino, 0, {}, {}))
            if inode != st.st_ino or st.st_size < size:
                size, known, gone = 0, {}, {}
            if st.st_size > size:
                with open(path, "rb") as handle:
                    handle.seek(size)
                    data = handle.read(st.st_size - size)
                complete = data.rfind(b"\n") + 1  # a half-written last line waits for next time
                for raw in data[:complete].splitlines():
                    change = change_parse(raw)
                    if change is None:
                        continue
                    if change.op == "remove":
                        if (writer := known.pop(change.fact_id, None)) is not None:
                            gone[change.fact_id] = writer
                    elif change.op == "restore" and change.fact_id in gone:
                        known[change.fact_id] = gone.pop(change.fact_id)  # still its author
                    else:
                        known[change.fact_id] = Provenance(
                            by=change.by, via=change.via, at=change.at
                        )
                size += complete
            self._files[key] = (st.st_ino, size, known, gone)
            return known


_writers = _WriterCache()


def fact_writers(*, root: Path, shard: Shard) -> dict[str, Provenance]:
    """fact_id -> who last added or edited it in this shard, from the shard's history."""
    return _writers.lookup(history_path(root, shard))
