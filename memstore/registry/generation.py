"""The authorization generation: what lets a process remember who a caller is between calls.

Every API call must know that its token is live, that its bot may act for the person it names
and what its room is bound to. Asking Postgres all three each time costs three statements; a
process instead remembers the answers, each stamped with the *generation* it was read at, and
trusts one only while the workspace's generation is still that number.

The generation is one row (`memstore_authgeneration`, migration 0022). Postgres triggers move
it on every write that could change an answer (a token revoked, a bot renamed or deleted, a
project joined or left, a person renamed, a link made or removed, a room bound or reset), in
the writer's own transaction: once that write has committed, the next call in *any* process
reads the new number and asks again. Numbers come from a sequence, so a rolled-back write never
lets an old number come back. An answer is only remembered at a generation read before (or in
the same statement as) the answer itself, so a write that lands in between leaves it stale, not
trusted. Refusals are never remembered: a process only remembers what allowed a call.

`generation_read` is the one statement a call pays for all three; `GenerationCache` is the
per-process memory. Without the row (a database migrated without it), nothing is remembered.
"""

import threading
from collections import OrderedDict
from collections.abc import Hashable

from django.db import connection

GENERATION_SQL = "(SELECT n FROM memstore_authgeneration WHERE id = 1)"


def generation_read() -> int | None:
    """The workspace's authorization generation now (None: no row, remember nothing)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {GENERATION_SQL}")
        return cursor.fetchone()[0]


class GenerationCache[V]:
    """Answers remembered per key, each valid only at the generation it was read at; at most
    `size` keys (least recently used go first)."""

    def __init__(self, size: int = 10_000) -> None:
        self._size = size
        self._entries: OrderedDict[Hashable, tuple[int, V]] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, key: Hashable) -> bool:
        """Whether anything is remembered for `key`, at any generation."""
        return key in self._entries

    def get(self, key: Hashable, generation: int | None) -> V | None:
        """The answer remembered for `key` at exactly this generation, else None."""
        if generation is None:
            return None
        with self._lock:
            found = self._entries.get(key)
            if found is None or found[0] != generation:
                return None
            self._entries.move_to_end(key)
            return found[1]

    def put(self, key: Hashable, generation: int | None, value: V) -> None:
        """Remember `value` for `key`, read at `generation` (or in the same statement)."""
        if generation is None:
            return
        with self._lock:
            self._entries[key] = (generation, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
