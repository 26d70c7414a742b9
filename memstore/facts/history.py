"""The change history of every shard, kept on disk beside its memory as `history.jsonl`.

One JSON object per line, appended (rewritten only by an erase, `memstore.privacy.erase`, which turns
the lines holding an erased fact into tombstones): what changed (add, remove, edit), which
fact line, in which file, when, by whom and how (`via`: api, tool, learner, console, hand-edit…).
Because it lives with the files, a full rebuild of the index loses none of it. This module
reads and appends the log and answers "what did this shard hold at time T"; it does not decide
what to record (services and the index sync do).
"""

import contextlib
import errno
import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from memstore.facts.files import file_open
from memstore.facts.paths import Shard
from memstore.facts.volume import volume_errors

HISTORY_FILE = "history.jsonl"


@dataclass(frozen=True, slots=True)
class Change:
    """One recorded change to one fact line."""

    op: str  # add | remove | edit
    file: str  # path relative to MEMORY_ROOT
    fact_id: str
    line: str  # the fact line after the change (for remove: the line that was removed)
    old_line: str = ""  # for edit: the line before
    old_fact_id: str = ""  # for edit: the identity before
    by: str = ""
    via: str = ""
    at: str = ""  # ISO 8601 UTC, set when appended
    # remove: the line's number in its file (1-based) before it went, so a restore puts it back
    # there; restore: where it was put back. "" when not known (older records).
    position: str = ""


def history_path(root: Path, shard: Shard) -> Path:
    """Where a shard's history lives."""
    return root / shard.rel / HISTORY_FILE


def history_append(root: Path, shard: Shard, changes: Iterable[Change]) -> None:
    """Append changes to the shard's history in one write (O_APPEND keeps concurrent lines whole)."""
    stamp = datetime.now(UTC).isoformat(timespec="microseconds")
    payload = "".join(
        json.dumps(_record(change, stamp), ensure_ascii=False) + "\n" for change in changes
    )
    if not payload:
        return
    path = history_path(root, shard)
    data = payload.encode("utf-8")
    with volume_errors(path):
        fd = file_open(path, os.O_WRONLY | os.O_APPEND)
        try:
            _append_whole(fd, data)
        finally:
            os.close(fd)


def _append_whole(fd: int, data: bytes) -> None:
    # A full volume can take part of the lines: cut them off again so no torn line stays.
    start = os.fstat(fd).st_size
    try:
        if os.write(fd, data) != len(data):
            raise OSError(errno.ENOSPC, "short write")
    except OSError:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, start)
        raise


def _record(change: Change, stamp: str) -> dict[str, str]:
    record = {**asdict(change), "at": change.at or stamp}
    if not record["position"]:
        del record["position"]  # most changes have none: keep the lines as they were
    return record


def history_read(root: Path, shard: Shard) -> list[Change]:
    """Every change recorded for a shard, oldest first; unreadable lines are skipped."""
    try:
        raw = history_path(root, shard).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    return [change for line in raw.splitlines() if (change := change_parse(line)) is not None]


def change_parse(raw: bytes | str) -> Change | None:
    """One history line as a Change, or None if it is not a readable record (the one reader
    of the history line format)."""
    try:
        record = json.loads(raw)
        return Change(**{k: str(v) for k, v in record.items() if k in _FIELDS})
    except (ValueError, TypeError, AttributeError):
        return None


def copies_as_of(changes: Iterable[Change], when: datetime) -> dict[tuple[str, str], str]:
    """The fact lines present at `when` per (file, identity), replaying the history up to it."""
    present: dict[tuple[str, str], str] = {}
    cutoff = when.astimezone(UTC).isoformat(timespec="microseconds")
    # Entries from different processes can land a hair out of order: filter, don't stop early.
    for change in sorted((c for c in changes if c.at <= cutoff), key=lambda c: c.at):
        if change.op == "remove":
            present.pop((change.file, change.fact_id), None)
        elif change.op == "edit":
            present.pop((change.file, change.old_fact_id or change.fact_id), None)
            present[(change.file, change.fact_id)] = change.line
        else:
            present[(change.file, change.fact_id)] = change.line
    return present


def lines_as_of(changes: Iterable[Change], when: datetime) -> dict[str, str]:
    """The fact lines present at `when` (identity -> line), replaying the history up to it.

    Copies are tracked per file, so removing a fact from one file keeps a copy in another."""
    present = copies_as_of(changes, when)
    return {fact_id: line for (_, fact_id), line in sorted(present.items())}


_FIELDS = set(Change.__dataclass_fields__)
