"""The index: the only writer of `MemoryFile` and `Fact` rows, which mirror the memory files.

    sync.py     index_sync (before every read), index_sync_file (after every write)
    written.py  a write's own change to one file in one statement (`written_rows`)
    behind.py   the background thread that finishes syncs too large for a read's budget
    rebuild.py  index_rebuild (`manage.py reindex`)
    rows.py     what both share: finding files, reading them, computing row columns

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
