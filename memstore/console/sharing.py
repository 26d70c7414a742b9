"""Sharing a private memory with the workspace from the console: staff only (members
never see the button), on a memory they may read; what it does is `memstore.store.sharing`.
The share audit (staff only): the workspace's audit trail (`memstore.store.audit`), each entry
with what the shared copy says now.
"""

from dataclasses import dataclass

from memstore.console.facts import shard_of_file
from memstore.console.viewer import Viewer
from memstore.errors import NotAllowed
from memstore.facts.paths import locate
from memstore.store.audit import AuditEntry, audit_read
from memstore.store.selectors import fact_find
from memstore.store.sharing import Shared, Sharing, fact_share, share_plan

AUDIT_SHOWN = 500  # entries on the page, newest first


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One audit entry, with the text of the shared copy as it stands ("" once it is gone)."""

    entry: AuditEntry
    text: str


@dataclass(frozen=True, slots=True)
class ShareAudit:
    """The share audit page: its rows (newest first), how many entries the trail holds, and
    how many of its lines could not be read."""

    rows: list[AuditRow]
    total: int
    unreadable: int


def console_share_plan(*, viewer: Viewer, file: str, fact_id: str) -> Sharing:
    """What sharing this memory would do, for the confirmation (NotAllowed unless staff)."""
    _check(viewer, file)
    return share_plan(file=file, fact_id=fact_id)


def console_fact_share(*, viewer: Viewer, file: str, fact_id: str) -> Shared:
    """Share the memory with the workspace as this person (`by=<their name>`)."""
    _check(viewer, file)
    return fact_share(file=file, fact_id=fact_id, by=viewer.person)


def _check(viewer: Viewer, file: str) -> None:
    shard_of_file(viewer, file)  # a memory they may read
    if not viewer.staff:
        raise NotAllowed("Only staff can share a private memory with the workspace.")


def console_share_audit(*, viewer: Viewer) -> ShareAudit:
    """Every share recorded on the workspace's audit trail, newest first (NotAllowed unless
    staff: the trail names every person's memory that was shared)."""
    if not viewer.staff:
        raise NotAllowed("Only staff can read the share audit.")
    trail = audit_read(limit=AUDIT_SHOWN)
    return ShareAudit(
        rows=[AuditRow(entry=e, text=_shared_text(e)) for e in trail.entries],
        total=trail.total,
        unreadable=trail.unreadable,
    )


def _shared_text(entry: AuditEntry) -> str:
    location = locate(entry.target)
    if location is None:
        return ""
    copies = fact_find(scopes=[location.shard.scope], fact_id=entry.fact_id)
    return next((c.text for c in copies if c.file == entry.target), "")
