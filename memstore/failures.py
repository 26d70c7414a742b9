"""Writes that were refused or failed, kept so that nothing fails quietly (SPEC §1.6).

One JSON object per line in `MEMORY_ROOT/failures.jsonl`, appended and never rewritten, beside
the memory it is about (so it travels with backups like the shards' histories do). Any front door
(the console, the API, the learner) records a refusal here with `failure_record`; the console
lists the newest with `failures_recent`. This module does not decide what counts as a failure.
"""

import json
import os
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from memstore.activity import lines_backwards
from memstore.errors import MemstoreError

FAILURES_FILE = "failures.jsonl"


@dataclass(frozen=True, slots=True)
class Failure:
    """One refused or failed write: when, which bot's memory, what was refused and why."""

    at: str
    bot: str
    op: str  # remember | edit | forget | restore | clear | learn ...
    code: str  # the MemstoreError code, e.g. secret_refused
    message: str
    by: str = ""
    via: str = ""

    @property
    def when(self) -> datetime | None:
        """`at` as a datetime (None if unreadable)."""
        try:
            return datetime.fromisoformat(self.at)
        except ValueError:
            return None


def failure_record(
    *, root: Path, bot: str, op: str, error: MemstoreError, by: str = "", via: str = ""
) -> Failure:
    """Append a refused write to the workspace's failure log (one O_APPEND write)."""
    failure = Failure(
        at=datetime.now(UTC).isoformat(timespec="seconds"),
        bot=bot,
        op=op,
        code=error.code,
        message=error.message,
        by=by,
        via=via,
    )
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root / FAILURES_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (json.dumps(asdict(failure), ensure_ascii=False) + "\n").encode("utf-8"))
    finally:
        os.close(fd)
    return failure


def failures_recent(*, root: Path, limit: int = 20, bots: set[str] | None = None) -> list[Failure]:
    """The newest recorded failures, newest first (optionally only for some bots)."""
    found: list[Failure] = []
    for _, line in lines_backwards(root / FAILURES_FILE, None):
        try:
            record = json.loads(line)
            failure = Failure(**{k: str(record.get(k, "")) for k in Failure.__dataclass_fields__})
        except (ValueError, TypeError, AttributeError):
            continue
        if bots is None or failure.bot in bots:
            found.append(failure)
        if len(found) == limit:
            break
    return found
