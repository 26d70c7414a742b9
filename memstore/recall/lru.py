"""A per-process cache of values that take a while to build, least recently used first out.

Owns: `BuiltCache`, shared by recall's scope snapshots (`snapshot`) and vector matrices
(`matrices`). A value is built by one thread at a time per key (a second thread asking for the
same key waits for it and takes it), while other keys are served meanwhile: a worker thread
reading a cold 100,000-fact scope (most of a second) no longer stalls every other recall in the
process. The cache holds at most `budget` units (rows) and drops the least recently used values
past it; a caller keeps the values it was given even if they are dropped meanwhile.

Does not: know what the values are, or when one is stale (the caller says, per call).
"""

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable


class BuiltCache[V]:
    """Values by key, built on demand, within a budget of `size(value)` units."""

    def __init__(self, budget: int, size: Callable[[V], int]) -> None:
        self.budget = budget
        self._size = size
        self._values: OrderedDict[Hashable, V] = OrderedDict()
        self._building: dict[Hashable, threading.Lock] = {}
        self._total = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable, fresh: Callable[[V], bool], build: Callable[[V | None], V]) -> V:
        """The value for `key` if `fresh(value)`, else `build(previous value or None)`, kept."""
        held = self._fresh(key, fresh)
        if held is not None:
            return held
        with self._lock:
            building = self._building.setdefault(key, threading.Lock())
        with building:  # one builder per key; other keys go on
            held = self._fresh(key, fresh)
            if held is not None:
                return held
            with self._lock:
                previous = self._values.get(key)
            built = build(previous)
            self._keep(key, built)
            return built

    def peek(self, key: Hashable) -> V | None:
        """The value held for `key`, fresh or not, without building or reordering anything."""
        with self._lock:
            return self._values.get(key)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self._total = 0

    def _fresh(self, key: Hashable, fresh: Callable[[V], bool]) -> V | None:
        with self._lock:
            held = self._values.get(key)
            if held is not None and fresh(held):
                self._values.move_to_end(key)
                return held
        return None

    def _keep(self, key: Hashable, value: V) -> None:
        with self._lock:
            old = self._values.pop(key, None)
            if old is not None:
                self._total -= self._size(old)
            self._values[key] = value
            self._total += self._size(value)
            while self._total > self.budget and len(self._values) > 1:
                dropped_key, dropped = next(iter(self._values.items()))
                if dropped_key == key:
                    break
                del self._values[dropped_key]
                self._total -= self._size(dropped)
