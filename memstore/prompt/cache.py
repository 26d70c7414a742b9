"""The prompt's blocks, remembered per process while their scope is unchanged.

Owns: `blocks_cached`, which gives each scope's `BlockInput` (the best profile and recent facts
within the budgets, and how many facts the scope holds) from a small per-process cache keyed by
the scope's version (see `memstore.recall.versions`), the day (TIME_ZONE), the budgets and whether
private facts may show; a scope whose files changed since is loaded again. A block depends on
its scope's files (ranks, dates, paths, positions and visibility all come from them) and on the
usage nudge read when it is loaded (`memstore.facts.ranking.usage_bonus`): usage counted since
moves a fact at the next change of the scope's files, or the next day, not on every flush of
the counts (which would reload every block every 30 s). Loading one sorts its whole scope
(10–14 ms for 7,000 facts); reading the versions of every block is one statement.

Does not: sync (the caller does, before), compose the section, or know how a block is loaded.
"""

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping

from django.db import connection
from django.utils import timezone

from memstore.facts.paths import Scope
from memstore.recall.versions import versions_read

CACHE_BLOCKS = 256  # blocks per process (each at most ~130 stored facts)

_cache: OrderedDict[tuple, object] = OrderedDict()
_lock = threading.Lock()


def blocks_cached[T](
    scopes: list[tuple[str, Scope]],
    budgets: Mapping[str, Mapping],
    private: bool,
    load: Callable[[Scope, Mapping, bool], T],
    empty: Callable[[Scope, bool], T | None] | None = None,
) -> list[T]:
    """`load(scope, budgets[kind], private)` for each (kind, scope), remembered by version;
    for a scope without files, `empty(scope, private)` when it gives a block (a scope most
    workspaces leave empty then costs no load)."""
    versions = versions_read([str(scope) for _, scope in scopes])
    db = connection.settings_dict["NAME"]
    today = timezone.localdate()
    blocks = []
    for kind, scope in scopes:
        version = versions.get(str(scope))
        if version is None and empty is not None and (nothing := empty(scope, private)):
            blocks.append(nothing)
            continue
        budget = budgets[kind]
        # Today's date is part of the key: a fact whose `until` passed leaves the block at
        # midnight though no file changed, and the usage nudge is re-read once a day.
        key = (db, str(scope), version, tuple(sorted(budget.items())), private, today)
        with _lock:
            block = _cache.get(key) if version is not None else None
            if block is not None:
                _cache.move_to_end(key)
        if block is None:
            block = load(scope, budget, private)
            if version is not None:
                with _lock:
                    _cache[key] = block
                    while len(_cache) > CACHE_BLOCKS:
                        _cache.popitem(last=False)
        blocks.append(block)
    return blocks


def prompt_cache_clear() -> None:
    """Forget every remembered block in this process (tests)."""
    with _lock:
        _cache.clear()
