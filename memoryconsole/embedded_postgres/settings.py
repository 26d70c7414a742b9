"""The embedded server's WAL settings, written with its other settings (`ALTER SYSTEM`, in
`memoryconsole.config`) and applied from its next start, so a data folder made before them
picks them up when its server starts again.

The embedded server has no replica and no WAL archive, so it writes the least WAL
(`wal_level = minimal`): a rebuild's `COPY` into the tables it truncated in its transaction,
and the index builds in it, write their pages once instead of also to the WAL, which on a
million facts is most of a gigabyte and a checkpoint or two (docs/benchmarks.md).
Crash safety is the same: such files are synced at the commit. `minimal` needs
`max_wal_senders = 0` (a server with WAL senders and `minimal` refuses to start), so that one
comes first.

Does not: touch a server given by DATABASE_URL (its WAL is its owner's choice).
"""

WAL_SETTINGS = {"max_wal_senders": 0, "wal_level": "minimal"}
