"""The prompt's blocks, remembered per process while their scope is unchanged.

Owns: `blocks_cached`, which gives each scope's `BlockInput` (the best profile and recent facts
within the budgets, and how many facts the scope holds) from a small per-process cache keyed by
the scope's version (see `memstore.recall.versions`), the day (TIME_ZONE), the budgets and whether
private facts may show; a scope whose files changed since is loaded again. A block depends on
its scope's files (ranks, dates, paths, positions and visibility all come from them) and on the
usage nudge read when it is loaded (`memstore.facts.ranking.usage_bonus`): usage counted since
moves a fact at the next change of the scope's files, or the next day, not on every flush of
the counts (which would reload every block every 30 s). Loading one reads each file's best
rows from an index (`memstore.prompt.indexed`: a few ms at any size, never a sort of the whole
scope); the versions of every block are one statement, or part of the caller's
(`section._context_read`).

A scope whose version moves after it was loaded once (a write, a hand edit) gets a state
(`memstore.prompt.incremental`): all its rows as the prompt ranks them, kept per process and
brought up to date by what changed since, so the prompt after a write reads only the changed
files' new rows instead of reading the block again. The state is an optimisation, never a
precondition: a scope loaded only once never pays for one, and one above `STATE_MAX_FACTS`
facts is read from the index after every change (loading its state whole would cost more than
the reads it saves, inside a request's time budget).

Before the prompt's statement, `deltas_folded` stats the files of each scope that has a state:
when one has another stat than the index had for it (a write, here or in another process), the
state's delta statement rides in the prompt's own (`section._context_read`) and `blocks_cached`
brings the state up to date from what it read, so the prompt after a write runs no more
statements than a warm one; a warm prompt pays a few stats for it, none when the sync's folded
check statted the same files just before (`sync_fold_stats`). A state that moved on
meanwhile (another thread) or a change the stats did not show reads its delta on its own.

The `seed` shape (settings.PROMPT_SHAPE) is part of the key, and its blocks never use a state:
a state keeps each part's best in the `blocks` order (rank) as it merges every change, and
keeping a second order up to date on every merge would cost every write; the `seed` shape's
blocks are read from the index (`memstore.prompt.indexed` reads any order) whenever their scope
changed.

Does not: sync (the caller does, before), compose the section, or know how a block is loaded.
"""

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from django.db import connection
from django.utils import timezone

from memstore.facts.paths import Scope, memory_root
from memstore.index.sync import sync_fold_stats
from memstore.prompt.compose import BlockInput
from memstore.prompt.incremental import STATE_MAX_FACTS, ScopeState, state_block, state_load
from memstore.recall.versions import versions_read

CACHE_BLOCKS = 256  # blocks per process (each at most ~130 stored facts)
CACHE_STATES = 16  # scope states per process
CACHE_STATE_ROWS = 60_000  # rows in all of them (about 600 bytes each: ~35 MB; one may be larger)
CACHE_SEEN = 1024  # scopes whose last loaded version is remembered

_cache: OrderedDict[tuple, object] = OrderedDict()
_states: OrderedDict[tuple, ScopeState] = OrderedDict()
_seen: OrderedDict[tuple, tuple] = OrderedDict()
_lock = threading.Lock()


@dataclass(slots=True)
class DeltaFold:
    """One state's delta statement for a caller to fold into its own; `items` is what it read."""

    key: tuple
    state: ScopeState
    generation: int
    sql: str
    params: list
    items: list | None = None


def deltas_folded(scopes: Iterable[Scope]) -> list[DeltaFold]:
    """The delta statements of the scopes whose state's files changed on disk since it was
    last brought up to date (usually none: then nothing to fold)."""
    db, today = connection.settings_dict["NAME"], timezone.localdate()
    with _lock:
        # Read under the lock: a state taken out by another thread changes meanwhile.
        held = [
            (key, state)
            for scope in scopes
            if (state := _states.get(key := (db, str(scope), today)))
        ]
        held = [
            (key, state, state.generation, list(state.files.values()), state.delta_query())
            for key, state in held
        ]
    if not held:
        return []
    root, stats = str(memory_root()), sync_fold_stats()  # the sync's check statted them
    return [
        DeltaFold(key, state, generation, *query)
        for key, state, generation, files, query in held
        if state.disk_changed(root, files, stats)
    ]


def blocks_cached[T](
    scopes: list[tuple[str, Scope]],
    budgets: Mapping[str, Mapping],
    private: bool,
    load: Callable[[Scope, Mapping, bool], T],
    empty: Callable[[Scope, bool], T | None] | None = None,
    versions: Mapping[str, tuple] | None = None,
    folded: Iterable[DeltaFold] = (),
    shape: str = "blocks",
) -> list[T]:
    """`load(scope, budgets[kind], private)` for each (kind, scope), remembered by version;
    for a scope without files, `empty(scope, private)` when it gives a block (a scope most
    workspaces leave empty then costs no load). `versions`: the scopes' versions when the
    caller read them in its own statement (the prompt does), else they are read here;
    `folded`: the deltas it read with them (`deltas_folded`); `shape`: the section's shape
    (`load` reads its order), part of the key."""
    if versions is None:
        versions = versions_read([str(scope) for _, scope in scopes])
    db = connection.settings_dict["NAME"]
    today = timezone.localdate()
    deltas = {fold.key: fold for fold in folded if fold.items is not None}
    blocks = []
    for kind, scope in scopes:
        version = versions.get(str(scope))
        if version is None and empty is not None and (nothing := empty(scope, private)):
            blocks.append(nothing)
            continue
        budget = budgets[kind]
        # Today's date is part of the key: a fact whose `until` passed leaves the block at
        # midnight though no file changed, and the usage nudge is re-read once a day.
        key = (db, str(scope), version, tuple(sorted(budget.items())), private, today, shape)
        with _lock:
            block = _cache.get(key) if version is not None else None
            if block is not None:
                _cache.move_to_end(key)
        if block is None:
            where = (db, str(scope), today)
            if shape != "blocks":  # no state keeps the `seed` order (see the module doc)
                block = load(scope, budget, private)
            else:
                block = _block_load(scope, version, budget, private, load, where, deltas.get(where))
            if version is not None:
                with _lock:
                    _cache[key] = block
                    while len(_cache) > CACHE_BLOCKS:
                        _cache.popitem(last=False)
        blocks.append(block)
    return blocks


def _block_load[T](
    scope: Scope,
    version: tuple | None,
    budget: Mapping,
    private: bool,
    load: Callable[[Scope, Mapping, bool], T],
    key: tuple,
    fold: DeltaFold | None = None,
) -> T | BlockInput:
    """The block from the scope's state brought up to date, or `load()` for a scope seen for
    the first time (or no longer than its version: other budgets, another room)."""
    if version is None or version[-1] > STATE_MAX_FACTS:
        return load(scope, budget, private)
    with _lock:
        # Taken out while in use: a second thread meanwhile loads its own, and one is kept.
        state = _states.pop(key, None)
        seen = _seen.get(key)
        _seen[key] = version
        _seen.move_to_end(key)
        while len(_seen) > CACHE_SEEN:
            _seen.popitem(last=False)
    if state is None and seen in (None, version):
        return load(scope, budget, private)
    # What the caller read with the versions, if it is this state's delta from where it stands.
    items = (
        fold.items if fold and fold.state is state and fold.generation == state.generation else None
    )
    if state is None or (state.version != version and not state.update(version[1], items)):
        state = state_load(scope, key[2])
    state.version = version
    block = state_block(state, budget, private)
    with _lock:
        _states[key] = state
        while len(_states) > CACHE_STATES or (
            len(_states) > 1 and sum(len(s.rows) for s in _states.values()) > CACHE_STATE_ROWS
        ):
            _states.popitem(last=False)
    return block


def prompt_cache_clear() -> None:
    """Forget every remembered block and scope state in this process (tests)."""
    with _lock:
        _cache.clear()
        _states.clear()
        _seen.clear()
