"""Reading memory within a time budget (`settings.MEMORY_READ_BUDGET_MS`, default 500 ms): a
prompt or a recall never waits on a busy database.

`memory_read` runs the sync first, in its own transaction with Postgres `lock_timeout` and
`statement_timeout` set to the sync's share of the budget: a writer holding the bot's lock (the
sync takes it as a transaction-scoped advisory lock, see `memstore.facts.locks`) makes the lock
wait fail instead of block. The sync is bounded (`sync_bounded`): a change too large to parse
within the budget (a drop-in of thousands of lines) is synced on a background thread while the
read answers from the index as it stands, marked stale; the caller's `new_facts` hook hears of
new facts (recall queues their vectors). Then it runs the read itself with every `index_sync`
inside it skipped (`sync_skipped`) and a statement timeout for what is left of the budget (with
a small floor); when the sync found nothing to write, in the sync's own transaction (one round
trip per statement counts on a busy box):
- the sync finished: the answer is fresh;
- the sync ran out of time: the answer comes from the index as it stands, marked `stale`;
- the read ran out of time (a statement cancelled by its timeout, a lock not granted): what
  is ready, `partial()` (recall's words side, the prompt's last good section), run in a fresh
  transaction in the budget's last PARTIAL_SHARE (kept back from the read for it, at least
  PARTIAL_FLOOR_MS) and marked `partial` with the reason (and `stale`); with nothing ready,
  `empty()` marked `unavailable` with that reason;
- the read failed otherwise (a database that can't be reached): `empty()` marked
  `unavailable`.

While a read runs, `read_left_ms()` tells it how much of the budget is left, so that a step
it can do without (waiting for the query's vector, reranking) is skipped in time rather than
cancelled half-way.

Does not: interrupt a stat or a read of a file that hangs in the kernel (a dead network volume);
the budget bounds every wait on Postgres.
"""

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from psycopg import errors as pg_errors

from memstore.facts.paths import Scope
from memstore.index import index_sync
from memstore.index.sync import (
    SyncNeeded,
    sync_bounded,
    sync_check_start,
    sync_folded,
    sync_skipped,
)

logger = logging.getLogger(__name__)

READ_FLOOR_MS = 40  # the read always gets at least this long, even when the sync used it all
SYNC_SHARE = 0.7  # the part of the budget the sync may use; the read gets the rest
PARTIAL_SHARE = 0.2  # the end of the budget, kept for what is ready when the read runs out
PARTIAL_FLOOR_MS = 80  # ... and at least this long
RAN_OUT = "time ran out"  # the start of every reason a read answered with what was ready

MemoryState = Literal["ok", "unavailable"]
_deadline: ContextVar[float | None] = ContextVar("memory_read_deadline", default=None)


@dataclass(frozen=True, slots=True)
class Timed[T]:
    """A read's answer and how it was obtained."""

    value: T
    stale: bool  # the files could not be synced in time: the index as it stood
    memory: MemoryState  # "unavailable": the read failed; `value` is the empty answer
    elapsed_ms: float
    partial_reason: str = ""  # why `value` is only what was ready when time ran out

    @property
    def partial(self) -> bool:
        """Whether `value` is only part of the answer (see `partial_reason`)."""
        return bool(self.partial_reason)


def read_left_ms() -> float | None:
    """Milliseconds left of the budget of the read in progress (None outside one)."""
    deadline = _deadline.get()
    return None if deadline is None else (deadline - time.monotonic()) * 1000


def ran_out(error: BaseException) -> bool:
    """Whether a database error is the budget running out (a statement cancelled by its
    timeout, a lock not granted in time), not a database that can't be reached."""
    cause = error.__cause__ or error
    return isinstance(cause, pg_errors.QueryCanceled | pg_errors.LockNotAvailable)


def budget_ms() -> int:
    """The time budget in force, in milliseconds (at least 10)."""
    return max(10, int(settings.MEMORY_READ_BUDGET_MS))


@contextmanager
def _timeouts(ms: int, *, nested: bool) -> Iterator[None]:
    """Postgres lock and statement timeouts of `ms` for the block (inside a transaction)."""
    # is_local=true: the settings end with the transaction, or go with a rolled-back savepoint.
    # Nested in an outer transaction (a test's, a caller's), they are put back on success so
    # the outer one keeps its own; outermost, the commit ends them (no statement to restore).
    value = f"{max(1, ms)}ms"
    keep = "current_setting('lock_timeout'), current_setting('statement_timeout'), "
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {keep if nested else ''}"
            "set_config('lock_timeout', %s, true), set_config('statement_timeout', %s, true)",
            [value, value],
        )
        before = cursor.fetchone()[:2]
    yield
    if nested:
        _set_timeouts(*before)


def _set_timeouts(lock: str, statement: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('lock_timeout', %s, true), set_config('statement_timeout', %s, true)",
            [lock, statement],
        )


NewFacts = Callable[..., object] | None  # called as new_facts(force=...) when facts arrived


def _heard(new_facts: NewFacts, *, force: bool) -> None:
    if new_facts is not None:
        new_facts(force=force)


class _ReadFailed(Exception):
    """The read (not the sync) failed inside the transaction they shared."""

    def __init__(self, error: DatabaseError) -> None:
        self.error = error


def _try_sync[T](
    scopes: list[Scope],
    ms: int,
    read: Callable[[], T],
    left: Callable[[], int],
    fold: bool = False,
    new_facts: NewFacts = None,
):
    """Sync these scopes within `ms`: (fresh, [the read's value] if it ran here). False when it
    ran out of time (nothing half-done stays) or left large changes to the background
    (`sync_bounded`). When the sync finds nothing to write (the usual case: one stat per file
    and one query), `read()` runs in the sync's transaction, its timeouts lowered to `left()` ms
    if that is below the sync's: one transaction and two statements fewer than one each. A sync that wrote commits
    first, so a failed read never undoes it. A read that fails raises `_ReadFailed`.
    `fold`: the read carries the sync's query in its first statement (`sync_folded`); if a
    file changed, what it read is dropped and the sync runs as above."""
    nested = connection.in_atomic_block
    shared: list[T] = []
    try:
        bounded = sync_bounded(then=lambda: _heard(new_facts, force=True))
        with bounded, transaction.atomic(), _timeouts(ms, nested=nested):
            if fold and _folded_read(scopes, ms, read, left, shared):
                return True, shared
            report = index_sync(scopes=scopes)
            if not report.changed and not report.deferred:
                if (read_ms := left()) < ms:  # else the sync's tighter timeouts stand
                    _set_timeouts(f"{read_ms}ms", f"{read_ms}ms")
                try:
                    with sync_skipped():
                        shared.append(read())
                except DatabaseError as error:
                    raise _ReadFailed(error) from error
    except DatabaseError as error:
        logger.warning("memory sync skipped (budget %d ms): %s", ms, error)
        return False, shared
    if report.changed:
        _heard(new_facts, force=False)  # e.g. new facts need vectors: the worker makes them
    return not report.deferred, shared


def _folded_read[T](
    scopes: list[Scope], ms: int, read: Callable[[], T], left: Callable[[], int], shared: list
) -> bool:
    """`read()` with the sync's check folded in; True when it stands (nothing was behind)."""
    check = sync_check_start(scopes=scopes)
    if (read_ms := left()) < ms:  # the stats were slow: the read gets what is left
        _set_timeouts(f"{read_ms}ms", f"{read_ms}ms")
    try:
        with sync_skipped(), sync_folded(check):
            value = read()
    except SyncNeeded:
        return False  # nothing written yet: sync as usual, then read again
    except DatabaseError as error:
        raise _ReadFailed(error) from error
    if not check.done:  # the read never asked for the rows: check them on their own
        return False
    shared.append(value)
    return True


def memory_read[T](
    *,
    scopes: Iterable[Scope],
    read: Callable[[], T],
    empty: Callable[[], T],
    budget: int | None = None,
    fold: bool = False,
    new_facts: NewFacts = None,
    partial: Callable[[], T | None] | None = None,
) -> Timed[T]:
    """`read()` after syncing `scopes`, never waiting past the budget (see the module doc).
    `fold`: `read()` folds the sync's query into its first statement (recall and the prompt
    do). `new_facts(force=...)`: told when the sync indexed new facts (force: a background sync
    finished them). `partial()`: what is ready when the read runs out of time (None: nothing)."""
    started = time.monotonic()
    total = budget if budget is not None else budget_ms()
    reserve = max(PARTIAL_FLOOR_MS, int(total * PARTIAL_SHARE)) if partial is not None else 0
    read_ms = max(READ_FLOOR_MS, total - reserve)  # the read's own share; the rest is reserve

    def left_ms() -> int:
        return max(READ_FLOOR_MS, int(read_ms - (time.monotonic() - started) * 1000))

    token = _deadline.set(started + read_ms / 1000)
    try:
        fresh, value, memory, reason = _read_within(scopes, total, read, left_ms, fold, new_facts)
    finally:
        _deadline.reset(token)
    if reason:
        value, memory, reason = _what_is_ready(partial, empty, reason, reserve)
    elif memory == "unavailable":
        value = empty()
    elapsed = (time.monotonic() - started) * 1000
    return Timed(
        value=value,
        stale=not fresh or bool(reason),
        memory=memory,
        elapsed_ms=round(elapsed, 1),
        partial_reason=reason,
    )


def _read_within[T](scopes, total, read, left_ms, fold, new_facts):
    """(fresh, value, memory, why it ran out or ""): the sync and the read, as the module doc
    says; a read that ran out of time leaves its value to `_what_is_ready`."""
    memory: MemoryState = "ok"
    try:
        fresh, shared = _try_sync(
            list(scopes), int(total * SYNC_SHARE), read, left_ms, fold, new_facts
        )
    except _ReadFailed as failed:  # the sync was fine; the read in its transaction was not
        if ran_out(failed.error):
            return True, None, memory, _reason(failed.error, total)
        logger.warning("memory unavailable (budget %d ms): %s", total, failed.error)
        return True, None, "unavailable", ""
    if shared:
        return fresh, shared[0], memory, ""
    nested = connection.in_atomic_block
    try:
        with sync_skipped(), transaction.atomic(), _timeouts(left_ms(), nested=nested):
            return fresh, read(), memory, ""
    except DatabaseError as error:
        if ran_out(error):
            return fresh, None, memory, _reason(error, total)
        logger.warning("memory unavailable (budget %d ms): %s", total, error)
        return fresh, None, "unavailable", ""


def _reason(error: DatabaseError, total: int) -> str:
    logger.warning("memory read ran out of time (budget %d ms): %s", total, error)
    return f"{RAN_OUT}: the read did not finish within its {total:,} ms budget"


def _what_is_ready[T](
    partial: Callable[[], T | None] | None, empty: Callable[[], T], reason: str, ms: int
) -> tuple[T, MemoryState, str]:
    """What was ready when the read ran out (`partial()`, in a transaction of its own within
    the budget's reserve, `ms`), marked partial; with nothing ready, the empty answer,
    `unavailable`."""
    value = None
    if partial is not None:
        nested = connection.in_atomic_block
        token = _deadline.set(time.monotonic() + ms / 1000)
        try:
            with sync_skipped(), transaction.atomic(), _timeouts(ms, nested=nested):
                value = partial()
        except DatabaseError as error:
            logger.warning("memory read: nothing ready in time either: %s", error)
        finally:
            _deadline.reset(token)
    if value is None:
        return empty(), "unavailable", reason
    return value, "ok", reason
