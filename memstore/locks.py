"""The per-bot write lock: a Postgres session advisory lock, so it holds across processes and hosts.

Every file has exactly one writing bot, so one lock per bot serialises every write to its files.
A second, transaction-scoped lock per file path serialises index syncs of the same file.
"""

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection

_BOT_NAMESPACE = "memstore.bot:"
_FILE_NAMESPACE = "memstore.file:"


def _key(text: str) -> int:
    # A signed 64-bit key from a stable hash: Python's hash() differs between processes.
    return int.from_bytes(
        hashlib.blake2b(text.encode(), digest_size=8).digest(), "big", signed=True
    )


@contextmanager
def bot_lock(bot: str) -> Iterator[None]:
    """Hold `bot`'s write lock for the block; waits while another process holds it."""
    key = _key(_BOT_NAMESPACE + bot)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [key])
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [key])


def file_sync_lock(path: str) -> None:
    """Take the sync lock for one file until the current transaction ends."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_key(_FILE_NAMESPACE + path)])
