"""Sync memory files into the index: the only writer of `MemoryFile` and `Fact` rows.

`index_sync` is called before every read with the scopes that read depends on. It stats every
file of those scopes and compares the stats with the rows in one query, so when nothing changed
it costs the stats plus one query. A changed file is re-parsed and only the lines that differ
are deleted or inserted. Differences that the caller did not declare are hand edits: they are
recorded in the shard's history as `via=hand-edit`.

`index_rebuild` drops every row and reads all of MEMORY_ROOT again (`manage.py reindex`).
"""

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction

from memstore import markdown
from memstore.errors import UnreadableFile
from memstore.files import Signature, decode
from memstore.history import Change, history_append
from memstore.locks import file_sync_lock
from memstore.models import Fact, MemoryFile
from memstore.paths import FileLocation, Scope, Shard, all_scopes, locate, scope_shards
from memstore.ranking import rank_of, tier_of, weight_of

_SIG_FIELDS = ("path", "mtime_ns", "size", "inode")


def memory_root() -> Path:
    """The folder holding every memory file (settings.MEMORY_ROOT)."""
    return Path(settings.MEMORY_ROOT)


@dataclass(frozen=True, slots=True)
class SyncReport:
    """How much a sync looked at and how much it had to do."""

    files: int
    changed: int


def index_sync(*, scopes: Iterable[Scope]) -> SyncReport:
    """Bring the index up to date with the files of these scopes (stat first, parse what changed)."""
    root = memory_root()
    scopes = list(scopes)
    on_disk: dict[str, tuple[int, int, int]] = {}
    for scope in scopes:
        for shard in scope_shards(root, scope):
            _stat_shard(root, shard, on_disk)
    in_index = {
        path: (mtime_ns, size, inode)
        for path, mtime_ns, size, inode in MemoryFile.objects.filter(
            scope_key__in=[str(scope) for scope in scopes]
        ).values_list(*_SIG_FIELDS)
    }
    stale = [rel for rel, sig in on_disk.items() if in_index.get(rel) != sig]
    stale += [rel for rel in in_index if rel not in on_disk]
    for rel in stale:
        index_sync_file(rel)
    return SyncReport(files=len(on_disk), changed=len(stale))


def _stat_shard(root: Path, shard: Shard, found: dict[str, tuple[int, int, int]]) -> None:
    base = f"{shard.rel}/"
    try:
        st = os.stat(root / base / "profile.md")
        found[base + "profile.md"] = (st.st_mtime_ns, st.st_size, st.st_ino)
    except (FileNotFoundError, NotADirectoryError):
        pass
    try:
        with os.scandir(root / base / "log") as entries:
            for entry in entries:
                rel = f"{base}log/{entry.name}"
                if entry.name.endswith(".md") and locate(rel) is not None:
                    st = entry.stat()
                    found[rel] = (st.st_mtime_ns, st.st_size, st.st_ino)
    except (FileNotFoundError, NotADirectoryError):
        pass


def index_sync_file(rel: str, *, declared: Iterable[str] = (), by: str = "", via: str = "") -> None:
    """Re-read one file into the index. Changes to facts in `declared` are the caller's own;
    any other difference is recorded in history as a hand edit."""
    location = locate(rel)
    if location is None:
        return
    root = memory_root()
    declared = set(declared)
    with transaction.atomic():
        file_sync_lock(rel)
        row = MemoryFile.objects.filter(path=rel).first()
        try:
            with open(root / rel, "rb") as handle:
                sig = Signature.of(os.fstat(handle.fileno()))
                data = handle.read()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            if row is not None:
                old = dict(row.facts.values_list("fact_id", "line"))
                row.delete()
                _record(location, old, {}, declared, by=by, via=via)
            return
        if row is not None and (row.mtime_ns, row.size, row.inode) == (
            sig.mtime_ns,
            sig.size,
            sig.inode,
        ):
            return
        text, error = _decode_leniently(data, rel)
        facts = _unique_facts(markdown.parse_text(text))
        if row is None:
            row = MemoryFile(path=rel)
            old_rows: dict[str, tuple[int, str]] = {}
        else:
            old_rows = {
                fid: (pk, line) for pk, fid, line in row.facts.values_list("pk", "fact_id", "line")
            }
        _fill_file_row(row, location, sig, error, len(facts))
        row.save()
        new_lines = {fid: str(fact) for fid, fact in facts.items()}
        stale = [pk for fid, (pk, line) in old_rows.items() if new_lines.get(fid) != line]
        if stale:
            Fact.objects.filter(pk__in=stale).delete()
        fresh = [
            fact
            for fid, fact in facts.items()
            if fid not in old_rows or old_rows[fid][1] != new_lines[fid]
        ]
        Fact.objects.bulk_create(fact_row(row, location, fact) for fact in fresh)
        _record(
            location,
            {fid: line for fid, (_, line) in old_rows.items()},
            new_lines,
            declared,
            by=by,
            via=via,
        )


def _decode_leniently(data: bytes, rel: str) -> tuple[str, str]:
    # A file that is not UTF-8 is still indexed (with U+FFFD for bad bytes) so no fact vanishes
    # from view, but it is marked: writes to it are refused until a person fixes it.
    try:
        return decode(data, rel), ""
    except UnreadableFile as exc:
        return data.decode("utf-8", errors="replace"), exc.message


def _unique_facts(lines: list[markdown.Line]) -> dict[str, markdown.FactLine]:
    # Duplicates within a file collapse to one: the newest date wins, the first line a tie.
    facts: dict[str, markdown.FactLine] = {}
    for line in lines:
        fact = line.fact
        if fact is None:
            continue
        seen = facts.get(fact.identity)
        if seen is None or fact.day > seen.day:
            facts[fact.identity] = fact
    return facts


def _fill_file_row(
    row: MemoryFile, location: FileLocation, sig: Signature, error: str, count: int
) -> None:
    row.scope_key = str(location.shard.scope)
    row.shard_bot = location.shard.bot
    row.tier_file = location.tier_file
    row.month = location.month
    row.mtime_ns, row.size, row.inode = sig.mtime_ns, sig.size, sig.inode
    row.error = error
    row.fact_count = count


def fact_row(file_row: MemoryFile, location: FileLocation, fact: markdown.FactLine) -> Fact:
    """The index row for one fact line of a file."""
    tier = tier_of(tier_file=location.tier_file, tag=fact.tag)
    weight = weight_of(tier=tier, meta=fact.meta)
    return Fact(
        file=file_row,
        fact_id=fact.identity,
        day=fact.day,
        text=fact.text[:600],
        line=str(fact),
        meta=fact.meta,
        tier=tier,
        weight=weight,
        rank=rank_of(day=fact.day, weight=weight),
        visibility=fact.meta.get("visibility", "context"),
        scope_key=str(location.shard.scope),
        shard_bot=location.shard.bot,
    )


def _record(
    location: FileLocation,
    old: dict[str, str],
    new: dict[str, str],
    declared: set[str],
    *,
    by: str,
    via: str,
) -> None:
    file = location.rel
    changes = []
    for fid, line in old.items():
        if fid not in new and fid not in declared:
            changes.append(
                Change(op="remove", file=file, fact_id=fid, line=line, by=by, via="hand-edit")
            )
    for fid, line in new.items():
        if fid in declared:
            continue
        if fid not in old:
            changes.append(Change(op="add", file=file, fact_id=fid, line=line, via="hand-edit"))
        elif old[fid] != line:
            changes.append(
                Change(
                    op="edit",
                    file=file,
                    fact_id=fid,
                    line=line,
                    old_line=old[fid],
                    old_fact_id=fid,
                    via="hand-edit",
                )
            )
    if changes:
        history_append(memory_root(), location.shard, changes)


@dataclass(frozen=True, slots=True)
class RebuildReport:
    """What a full rebuild read."""

    files: int
    facts: int
    unreadable: int


_COPY_COLUMNS = (
    "file_id, fact_id, day, text, line, meta, tier, weight, rank, visibility, scope_key, shard_bot"
)


def index_rebuild(
    *, progress: Callable[[int, int], None] | None = None, batch: int = 500
) -> RebuildReport:
    """Drop every index row and read all of MEMORY_ROOT again, in one transaction."""
    root = memory_root()
    paths = [
        rel
        for scope in all_scopes(root)
        for shard in scope_shards(root, scope)
        for rel in _shard_paths(root, shard)
    ]
    total_facts = unreadable = 0
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE memstore_fact, memstore_memoryfile")
        for start in range(0, len(paths), batch):
            chunk = paths[start : start + batch]
            facts, bad = _rebuild_chunk(root, chunk)
            total_facts += facts
            unreadable += bad
            if progress:
                progress(min(start + batch, len(paths)), len(paths))
    return RebuildReport(files=len(paths), facts=total_facts, unreadable=unreadable)


def _shard_paths(root: Path, shard: Shard) -> list[str]:
    found: dict[str, tuple[int, int, int]] = {}
    _stat_shard(root, shard, found)
    return sorted(found)


def _rebuild_chunk(root: Path, paths: list[str]) -> tuple[int, int]:
    parsed = []
    for rel in paths:
        try:
            with open(root / rel, "rb") as handle:
                sig = Signature.of(os.fstat(handle.fileno()))
                data = handle.read()
        except FileNotFoundError:
            continue
        text, error = _decode_leniently(data, rel)
        location = locate(rel)
        facts = _unique_facts(markdown.parse_text(text))
        row = MemoryFile(path=rel)
        _fill_file_row(row, location, sig, error, len(facts))
        parsed.append((row, location, facts))
    MemoryFile.objects.bulk_create([row for row, _, _ in parsed])
    count = 0
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY memstore_fact ({_COPY_COLUMNS}) FROM STDIN") as copy,
    ):
        for row, location, facts in parsed:
            for fact in facts.values():
                f = fact_row(row, location, fact)
                copy.write_row(
                    (
                        row.pk,
                        f.fact_id,
                        f.day,
                        f.text,
                        f.line,
                        json.dumps(f.meta),
                        f.tier,
                        f.weight,
                        f.rank,
                        f.visibility,
                        f.scope_key,
                        f.shard_bot,
                    )
                )
                count += 1
    return count, sum(1 for row, _, _ in parsed if row.error)
