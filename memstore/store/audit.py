"""The workspace's audit trail: `audit.jsonl` at the top of MEMORY_ROOT, one JSON object per
action staff take on the workspace's memory as a whole (today: sharing a private memory), who
and when, appended and never rewritten, beside the files so a rebuild of the index loses none
of it. It names facts by identity and file, never by text, so an erase has nothing to redact
here. Does not: decide what is recorded (the services do) or show it (the console does).
"""

import json
import os
from dataclasses import asdict, dataclass
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
