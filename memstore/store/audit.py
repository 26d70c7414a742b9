"""The workspace's audit trail: `audit.jsonl` at the top of MEMORY_ROOT, one JSON object per
action staff take on the workspace's memory as a whole (today: sharing a private memory), who
and when, appended and never rewritten, beside the files so a rebuild of the index loses none
of it. It names facts by identity and file, never by text, so an erase has nothing to redact
here. Reading it (`audit_read`) takes it as it is: a line that is not an entry is counted, not
hidden. Does not: decide what is recorded (the services do) or show it (the console does).
"""

import json
import os
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime

from memstore.facts.files import file_open
from memstore.facts.paths import memory_root
from memstore.facts.volume import volume_errors

AUDIT_FILE = "audit.jsonl"


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One recorded action: `action` (share), the fact's identity, where it was and where it
    went, by whom and when (ISO 8601 UTC)."""

    action: str
    fact_id: str
    source: str  # the file it was in, relative to MEMORY_ROOT
    target: str  # the file it went to
    by: str
    at: str = ""


def audit_append(entry: AuditEntry) -> AuditEntry:
    """Append one entry (stamped now) to the trail; O_APPEND keeps concurrent lines whole."""
    stamped = AuditEntry(**(asdict(entry) | {"at": datetime.now(UTC).isoformat()}))
    path = memory_root() / AUDIT_FILE
    data = (json.dumps(asdict(stamped), ensure_ascii=False) + "\n").encode("utf-8")
    with volume_errors(path):
        fd = file_open(path, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
    return stamped


@dataclass(frozen=True, slots=True)
class AuditTrail:
    """The trail as read: its newest entries first (at most the `limit` asked), how many
    entries it holds, and how many of its lines are not entries (a hand edit, a torn write)."""

    entries: list[AuditEntry]
    total: int
    unreadable: int


_FIELDS = frozenset(f.name for f in fields(AuditEntry))


def audit_read(*, limit: int = 500) -> AuditTrail:
    """The trail's newest `limit` entries, newest first (an empty trail when there is no file)."""
    path = memory_root() / AUDIT_FILE
    try:
        lines = path.read_bytes().decode("utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return AuditTrail(entries=[], total=0, unreadable=0)
    entries: list[AuditEntry] = []
    unreadable = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            value = json.loads(line)
            entries.append(AuditEntry(**{k: str(v) for k, v in value.items() if k in _FIELDS}))
        except (ValueError, TypeError, AttributeError):
            unreadable += 1
    return AuditTrail(entries=entries[::-1][:limit], total=len(entries), unreadable=unreadable)
