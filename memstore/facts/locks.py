"""The per-bot write lock: a Postgres session advisory lock, so it holds across processes and hosts.

Every file has exactly one writing bot, so one lock per bot serialises every write to its files.
Index syncs of a bot's files take the same key, transaction-scoped (`bot_sync_lock`): a reader
that notices a changed file waits until the bot's writer has finished writing *and* indexing
it, so it never mistakes the writer's own change for a hand edit. Postgres lets one session
hold both kinds of lock on one key, so a writer re-syncing its file under `bot_lock` passes.
Lock order, always: bot lock, then index rows.
"""

import hashlib
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from django.db import DatabaseError, connection

_BOT_NAMESPACE = "memstore.bot:"
_held = threading.local()  # bots whose session lock this thread's connection holds


def _key(text: str) -> int:
    # A signed 64-bit key from a stable hash: Python's hash() differs between processes.
    return int.from_bytes(
        hashlib.blake2b(text.encode(), digest_size=8).digest(), "big", signed=True
    )


@contextmanager
def bot_lock(bot: str, *, reading: tuple[str, list] | None = None) -> Iterator[tuple]:
    """Hold `bot`'s write lock for the block; waits while another process holds it. Nested
    (this thread holds it already), it takes nothing more.

    `reading`: a select list and its parameters, run in the statement that takes the lock
    (one round trip instead of two), whose values the block gets as a tuple. Postgres reads
    them at that statement's snapshot, taken before the lock was granted, so what they say of
    the bot's own files must be checked against the files (a stat) once the lock is held."""
    key = _key(_BOT_NAMESPACE + bot)
    held = _held_counts()
    take = held[bot] == 0
    select, params = reading or ("", [])
    columns = [*(["pg_advisory_lock(%s)"] if take else []), *([select] if select else [])]
    row: tuple = ()
    if columns:
        try:
            with connection.cursor() as cursor:
                cursor.execute(f"SELECT {', '.join(columns)}", [*([key] if take else []), *params])
                row = tuple(cursor.fetchone()[1 if take else 0 :])
        except BaseException:
            # A session lock outlives the error of the statement that took it: if it got that
            # far, let go of it (if it did not, Postgres only warns).
            if take:
                with suppress(DatabaseError), connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
            raise
    held[bot] += 1
    try:
        yield row
    finally:
        held[bot] -= 1
        if take:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [key])


def _held_counts() -> Counter:
    if not hasattr(_held, "counts"):
        _held.counts = Counter()
    return _held.counts


def bot_sync_lock(bot: str, *, async_commit: bool = False) -> None:
    """Take `bot`'s lock until the current transaction ends (for syncing that bot's files);
    a no-op when this thread already holds it through `bot_lock`. With `async_commit`, the
    transaction's commit does not wait for the WAL flush (for index-only transactions: the
    index is rebuilt from files, so losing its last commits in a database crash is harmless)."""
    held = _held_counts()[bot] > 0
    if held and not async_commit:
        return
    lock = "true" if held else "pg_advisory_xact_lock(%s) IS NULL"
    commit = "set_config('synchronous_commit', 'off', true)" if async_commit else "''"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {lock}, {commit}", [] if held else [_key(_BOT_NAMESPACE + bot)])


def note_lock(rel: str) -> None:
    """Take the lock of one always-on note (its file relative to MEMORY_ROOT, versions
    included) until the current transaction ends: one writer per note, across processes."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 11))", ["note:" + rel])
