"""The one write path under every write service: `file_rewrite` changes one memory file.

    read the file -> apply the edit -> atomic replace (retry if edited meanwhile)
                  -> append to the shard's history -> index the file -> durable, answered

The caller holds the writing bot's lock (`memstore.facts.locks.bot_lock`) and says what to change
(an `Edit` of the file's lines); `memstore.store.services` holds the services built on it. The
folder's fsync that makes the rename durable runs while history and index are written
(`memstore.facts.files.write_settling`); `file_rewrite` returns only once it is done.
"""

from collections.abc import Callable, Iterable
from dataclasses import replace

from memstore.errors import EditConflict, MemoryVolumeError
from memstore.facts import markdown
from memstore.facts.files import (
    ChangedOnDisk,
    Replaced,
    Snapshot,
    content_digest,
    read_snapshot,
    write_back,
    write_settling,
)
from memstore.facts.history import Change, history_append
from memstore.facts.markdown import Line
from memstore.facts.parsed import lines_of
from memstore.facts.parsed import remember as parsed_remember
from memstore.facts.paths import FileLocation, locate, memory_root
from memstore.index import Written, index_sync_file
from memstore.index.events import events_kick
from memstore.index.written import written_rows
from memstore.store.prewrite import FileRow, Restat

MAX_ATTEMPTS = 8

Edit = Callable[[list[Line]], tuple[list[Line], list[Change]]]


def file_rewrite(
    rel: str,
    edit: Edit,
    *,
    header: str = "",
    by: str,
    via: str,
    indexed: FileRow | None = None,
    restat: Iterable[Restat] = (),
) -> list[Change]:
    """The one write path: apply `edit` to one memory file, atomically, append its changes to
    the shard's history and index the file; it returns once the file is durable. The caller
    holds the shard bot's lock. `indexed`: the file's index row as the caller read it with the
    lock (`prewrite`); when the file was read at that row's version, only the changed facts'
    rows are written, in one statement, with `restat` (rows of the writer's files found holding
    their indexed bytes under a new stat, `prewrite.Behind`)."""
    # Caller holds the shard bot's lock, so no other writer of ours touches this file. A person
    # with an editor still can: the signature check in write_settling catches that, and we
    # retry from a fresh read so their edit is kept.
    root = memory_root()
    path = root / rel
    location = locate(rel)
    assert location is not None, rel
    for _ in range(MAX_ATTEMPTS):
        snapshot = read_snapshot(path)
        text = snapshot.text if snapshot.text is not None else _new_file_text(header)
        new_lines, changes = edit(lines_of(rel, text))
        if not changes:
            return []
        new_text = markdown.render(new_lines)
        try:
            # The folder's fsync (the rename made durable) runs while history and index are
            # written; the write is acknowledged only once it is done.
            replaced = write_settling(path, new_text, expected=snapshot.signature)
        except ChangedOnDisk:
            continue
        changes = [replace(change, by=by, via=via) for change in changes]
        try:
            _recorded(location, snapshot, new_text, new_lines, changes, replaced, indexed, restat)
        finally:
            replaced.settle()
        events_kick()  # the webhooks' dispatcher reads the history line just appended
        return changes
    raise EditConflict(f"{rel} kept changing on disk while we tried to write it; try again.")


def _recorded(
    location: FileLocation,
    snapshot: Snapshot,
    new_text: str,
    new_lines: list[Line],
    changes: list[Change],
    replaced: Replaced,
    indexed: FileRow | None,
    restat: Iterable[Restat],
) -> None:
    # What follows a file's replacement: its history lines (`changes`, stamped), then its rows.
    rel, path = location.rel, replaced.path
    parsed_remember(rel, new_text, new_lines)  # the next write here parses nothing
    try:
        history_append(memory_root(), location.shard, changes)
    except MemoryVolumeError:
        write_back(path, snapshot)  # a change without its history line: undo it, refuse
        raise
    declared = {c.fact_id for c in changes} | {c.old_fact_id for c in changes if c.old_fact_id}
    written = Written(
        before=snapshot.signature.digest if snapshot.signature else "",
        after=content_digest(new_text.encode("utf-8")),
        lines=new_lines,
    )
    st = replaced.stat
    if (
        indexed is not None
        and written.before
        and indexed.digest == written.before
        and written_rows(
            location,
            file_id=indexed.id,
            before=written.before,
            after=written.after,
            stat=(st.st_mtime_ns, st.st_size, st.st_ino),
            lines=new_lines,
            declared=declared,
            restat=restat,
        )
    ):
        return
    index_sync_file(rel, declared=declared, written=written)


def _new_file_text(header: str) -> str:
    return (header or "# Memory") + markdown.HEADER.removeprefix("# Memory")
