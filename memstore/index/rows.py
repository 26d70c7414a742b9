"""Turning memory files into index rows: what sync and rebuild share.

Finding and stating a scope's files, reading a file the way the index reads it (bytes that are
not UTF-8 replaced, and the file marked), collapsing duplicate lines, and computing the columns
of `MemoryFile` and `Fact` rows. No row is written here.
"""

import os
import stat
from pathlib import Path
from typing import NamedTuple

from memstore.errors import UnreadableFile
from memstore.facts import markdown
from memstore.facts.files import decode
from memstore.facts.paths import FileLocation, Scope, is_log_name, scope_shards
from memstore.facts.ranking import derived
from memstore.facts.symlinks import folder_open
from memstore.models import Fact, MemoryFile

# A file indexed less than this long after its last write is "racy": a later edit of the same
# size could land in the same timestamp tick (ext4 ticks are ~4 ms, NFS can be a second), so its
# stat would not change. Such files are compared by content digest until they are older.
RACY_NS = 2_000_000_000


Stat = tuple[int, int, int]  # mtime_ns, size, inode


def stat_scope(base: str, root: Path, scope: Scope, found: dict[str, Stat]) -> None:
    """Add every memory file of a scope to `found` (relative path -> mtime_ns, size, inode).
    A symbolic link, file or folder, is not memory: never followed, never listed."""
    # Stats go through an open folder descriptor (fstatat): the kernel then resolves one name
    # instead of walking the whole path again for every file; the folder is opened one name at
    # a time, no link followed (`memstore.facts.symlinks`).
    for shard in scope_shards(root, scope):
        rel = shard.rel
        try:
            folder = folder_open(base, rel)
        except (FileNotFoundError, NotADirectoryError):
            continue
        try:
            try:
                st = os.stat("profile.md", dir_fd=folder, follow_symlinks=False)
                if stat.S_ISREG(st.st_mode):
                    found[f"{rel}/profile.md"] = (st.st_mtime_ns, st.st_size, st.st_ino)
            except (FileNotFoundError, NotADirectoryError):
                pass
            try:
                logs = os.open("log", _DIR_FLAGS, dir_fd=folder)
            except OSError:  # missing, not a folder, or a link (ELOOP)
                continue
            try:
                with os.scandir(logs) as entries:
                    for entry in entries:
                        if is_log_name(name := entry.name) and not entry.is_symlink():
                            try:
                                st = entry.stat(follow_symlinks=False)
                            except FileNotFoundError:
                                continue
                            found[f"{rel}/log/{name}"] = (st.st_mtime_ns, st.st_size, st.st_ino)
            finally:
                os.close(logs)
        finally:
            os.close(folder)


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def decode_leniently(data: bytes, rel: str) -> tuple[str, str]:
    """The file's text and "" — or, if it is not UTF-8, its text with U+FFFD and why."""
    # A file that is not UTF-8 is still indexed (with U+FFFD for bad bytes) so no fact vanishes
    # from view, but it is marked: writes to it are refused until a person fixes it.
    try:
        return decode(data, rel), ""
    except UnreadableFile as exc:
        return data.decode("utf-8", errors="replace"), exc.message


class Placed(NamedTuple):
    """A fact and its line number in the file (1-based): a later line wins a tie in rank."""

    fact: markdown.FactLine
    position: int


def unique_facts(lines: list[markdown.Line]) -> dict[str, Placed]:
    """The file's facts by identity (what the index holds: one row per identity per file)."""
    # Duplicates within a file collapse to one: the newest date wins, the first line a tie.
    facts: dict[str, Placed] = {}
    for number, line in enumerate(lines, 1):
        fact = line.fact
        if fact is None:
            continue
        identity = fact.identity
        seen = facts.get(identity)
        if seen is None or fact.day > seen.fact.day:
            facts[identity] = Placed(fact, number)
    return facts


def fill_file_row(
    row: MemoryFile,
    location: FileLocation,
    stat: Stat,
    digest: str,
    racy: bool,
    error: str,
    count: int,
) -> None:
    """Set a `MemoryFile` row's columns from what the file is, says and weighs."""
    row.scope_key = str(location.shard.scope)
    row.shard_bot = location.shard.bot
    row.tier_file = location.tier_file
    row.month = location.month
    row.mtime_ns, row.size, row.inode = stat
    row.digest = digest
    row.recheck = racy
    row.error = error
    row.fact_count = count


def fact_row(file_row: MemoryFile, location: FileLocation, placed: Placed) -> Fact:
    """The index row for one fact line of a file."""
    fact = placed.fact
    text, tier, weight, rank, visibility = derived(location.tier_file, fact)
    return Fact(
        file=file_row,
        fact_id=fact.identity,
        day=fact.day,
        text=text,
        line=str(fact),
        meta=fact.meta,
        tier=tier,
        weight=weight,
        rank=rank,
        visibility=visibility,
        scope_key=str(location.shard.scope),
        shard_bot=location.shard.bot,
        position=placed.position,
    )
