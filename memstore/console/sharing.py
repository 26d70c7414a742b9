"""Sharing a private memory with the workspace from the console: staff only (members
never see the button), on a memory they may read; what it does is `memstore.store.sharing`.
"""

from memstore.console.facts import shard_of_file
from memstore.console.viewer import Viewer
from memstore.errors import NotAllowed
from memstore.store.sharing import Shared, Sharing, fact_share, share_plan


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
