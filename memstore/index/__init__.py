"""The index: the only writer of `MemoryFile` and `Fact` rows, which mirror the memory files.

    sync          index_sync (before every read), index_sync_file (after every write)
    stale         which files the index is behind on (stats against rows), and a bounded split
    written       a write's own change to one file in one statement (`written_rows`)
    behind        the background thread that finishes syncs too large for a read's budget
    budget        `memory_read`: a read that never waits past its time budget
    rebuild       index_rebuild (`manage.py reindex`)
    rebuild_rows  the rebuild's rows, made from batches of memory files in worker processes
    rows          what sync and rebuild share: finding files, reading them, row columns
    events        the change feed's rows, numbered from the shards' histories; the webhook kick
    links         the link rows, mirrored from the lines' `rel=` metadata
    language      the word index's language (the text search configuration)

It never writes a memory file; `memstore.store.rewrite` does, then calls `written_rows` or
`index_sync_file`.
"""

from memstore.index.rebuild import RebuildReport, index_rebuild
from memstore.index.rows import RACY_NS, fact_row
from memstore.index.sync import SyncReport, Written, index_sync, index_sync_file

__all__ = [
    "RACY_NS",
    "RebuildReport",
    "SyncReport",
    "Written",
    "fact_row",
    "index_rebuild",
    "index_sync",
    "index_sync_file",
]
