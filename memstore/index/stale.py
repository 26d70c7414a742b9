"""Which files the index is behind on: every file of some scopes statted and compared with its
row (changed, gone, new, or racy and now due), and the changed ones split into what a bounded
sync parses now and what it leaves to the background. It reads stats, bytes and rows; it writes
no row (`memstore.index.sync` re-parses what this finds).
"""

import time
from collections.abc import Iterable
from pathlib import Path

from django.db import connection

from memstore.facts.files import content_digest, read_bytes
from memstore.facts.paths import Scope, locate, memory_root
from memstore.index.behind import behind_busy
from memstore.index.rows import RACY_NS, Stat, stat_scope

_SYNC_QUERY = (
    "SELECT path, mtime_ns, size, inode, recheck, digest FROM memstore_memoryfile "
    "WHERE scope_key = ANY(%s)"
)


def files_behind(
    scopes: list[Scope],
) -> tuple[int, list[str], dict[str, int], dict[str, Stat]]:
    """(files on disk, stale paths, sizes of the changed ones, files the index has never seen)
    for these scopes: their stats compared with their rows in one query."""
    on_disk = scopes_stat(scopes)
    # One raw query: the ORM's per-row overhead would be most of the cost of a no-op sync.
    with connection.cursor() as cursor:
        cursor.execute(_SYNC_QUERY, [[str(scope) for scope in scopes]])
        rows = cursor.fetchall()
    files = len(on_disk)
    stale, sizes = rows_behind(memory_root(), rows, on_disk)
    return files, stale, sizes, on_disk


def scopes_stat(scopes: list[Scope]) -> dict[str, Stat]:
    """The stat of every file of these scopes, by path relative to the memory root."""
    root = memory_root()
    on_disk: dict[str, Stat] = {}
    for scope in scopes:
        stat_scope(str(root), root, scope, on_disk)
    return on_disk


def rows_behind(
    root: Path, rows: Iterable[tuple], on_disk: dict[str, Stat]
) -> tuple[list[str], dict[str, int]]:
    """The files whose index rows (path, mtime_ns, size, inode, recheck, digest) are not what
    the files hold now by these stats (changed or gone, or racy and with other bytes), then the
    files of `on_disk` no row names (the index has never seen them), and the sizes of the
    changed ones still on disk. Takes the rows' paths out of `on_disk`."""
    stale = []
    sizes: dict[str, int] = {}
    now = time.time_ns()
    for path, mtime_ns, size, inode, recheck, digest in rows:
        found = on_disk.pop(path, None)
        changed = found != (mtime_ns, size, inode)
        if changed or (recheck and _recheck_due(root / path, mtime_ns, digest, now)):
            stale.append(path)
            sizes[path] = found[1] if found is not None else 0
    stale += on_disk  # files the index has never seen
    return stale, sizes


def stale_split(
    stale: list[str], sizes: dict[str, int], budget: int
) -> tuple[list[str], list[str]]:
    """The changed files to sync now, smallest first within `budget` bytes, and the rest; a
    bot with any file left for later (or being synced behind) leaves all of its files."""
    bots = {rel: location.shard.bot for rel in stale if (location := locate(rel)) is not None}
    now, later, used = [], [], 0
    for rel in sorted(stale, key=lambda rel: sizes.get(rel, 0)):
        size = sizes.get(rel, 0)
        if used + size <= budget and not behind_busy(bots.get(rel, "")):
            now.append(rel)
            used += size
        else:
            later.append(rel)
    held = {bots.get(rel) for rel in later}
    return [rel for rel in now if bots.get(rel) not in held], later + [
        rel for rel in now if bots.get(rel) in held
    ]


def _recheck_due(path: Path, mtime_ns: int, digest: str, now: int) -> bool:
    # Racy file: re-sync once it is old enough (to clear the flag) or as soon as its bytes differ.
    if now - mtime_ns >= RACY_NS:
        return True
    try:
        return content_digest(read_bytes(path)[0]) != digest
    except OSError:
        return True
