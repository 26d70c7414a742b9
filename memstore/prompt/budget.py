"""A prompt that never waits (SPEC §5.2): reading memory for a prompt or a recall
within a time budget (`settings.MEMORY_READ_BUDGET_MS`, default 500 ms).

`memory_read` runs the sync first, in its own transaction with Postgres `lock_timeout` and
`statement_timeout` set to the sync's share of the budget: a writer holding the bot's lock (the
sync takes it as a transaction-scoped advisory lock, see `memstore.facts.locks`) makes the lock wait
fail instead of block. The sync is bounded (`sync_bounded`): a change too large to parse within
the budget (a drop-in of thousands of lines) is synced on a background thread while the read
answers from the index as it stands, marked stale; new facts are found by their words as soon as
they are indexed, and by meaning once the worker has embedded them (`recall.jobs`). Then it runs the read itself with every `index_sync` inside it skipped
(`sync_skipped`) and a statement timeout for what is left of the budget (with a small floor);
when the sync found nothing to write, in the sync's own transaction (one round trip per
statement counts on a busy box):
- the sync finished: the answer is fresh;
- the sync ran out of time: the answer comes from the index as it stands, marked `stale`;
- the read failed too (a slow or unreachable database): `empty()` marked `unavailable`.

`prompt_answer` (the always-on notes, then the memory blocks; now within the budget, or as of a
date from history) and `recall_answer` are what the API and the console's preview call.

Does not: interrupt a stat or a read of a file that hangs in the kernel (a dead network volume);
the budget bounds every wait on Postgres.
"""

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from typing import Literal

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction

from memstore.facts.paths import Scope
from memstore.index import index_sync
from memstore.index.sync import (
    SyncNeeded,
    sync_bounded,
    sync_check_start,
    sync_folded,
    sync_skipped,
)
from memstore.prompt.asof import day_end, prompt_as_of
from memstore.prompt.compose import PromptSection
from memstore.prompt.notes import Note, notes_compose, notes_for
from memstore.prompt.section import prompt_build, prompt_scopes
from memstore.recall import RecallResult, recall_search
from memstore.recall.jobs import backfill_wanted
from memstore.rooms.access import Context, readable_scopes
from memstore.upkeep.usage import usage_note

logger = logging.getLogger(__name__)

READ_FLOOR_MS = 40  # the read always gets at least this long, even when the sync used it all
SYNC_SHARE = 0.7  # the part of the budget the sync may use; the read gets the rest

MemoryState = Literal["ok", "unavailable"]


@dataclass(frozen=True, slots=True)
class Timed[T]:
    """A read's answer and how it was obtained."""

    value: T
    stale: bool  # the files could not be synced in time: the index as it stood
    memory: MemoryState  # "unavailable": the read failed; `value` is the empty answer
    elapsed_ms: float


def budget_ms() -> int:
    """The time budget in force, in milliseconds (at least 10)."""
    return max(10, int(getattr(settings, "MEMORY_READ_BUDGET_MS", 500)))


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


class _ReadFailed(Exception):
    """The read (not the sync) failed inside the transaction they shared."""

    def __init__(self, error: DatabaseError) -> None:
        self.error = error


def _vectors_wanted() -> None:
    backfill_wanted(force=True)


def _try_sync[T](
    scopes: list[Scope],
    ms: int,
    read: Callable[[], T],
    left: Callable[[], int],
    fold: bool = False,
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
        bounded = sync_bounded(then=_vectors_wanted)
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
        backfill_wanted()  # new facts need vectors: the worker makes them, nobody waits
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
) -> Timed[T]:
    """`read()` after syncing `scopes`, never waiting past the budget (see the module doc).
    `fold`: `read()` folds the sync's query into its first statement (recall and the prompt
    do)."""
    started = time.monotonic()
    total = budget if budget is not None else budget_ms()

    def left_ms() -> int:
        return max(READ_FLOOR_MS, int(total - (time.monotonic() - started) * 1000))

    memory: MemoryState = "ok"
    try:
        fresh, shared = _try_sync(list(scopes), int(total * SYNC_SHARE), read, left_ms, fold)
    except _ReadFailed as failed:  # the sync was fine; the read in its transaction was not
        logger.warning("memory unavailable (budget %d ms): %s", total, failed.error)
        fresh, shared, memory = True, [empty()], "unavailable"
    if shared:
        value = shared[0]
    else:
        nested = connection.in_atomic_block
        try:
            with sync_skipped(), transaction.atomic(), _timeouts(left_ms(), nested=nested):
                value = read()
        except DatabaseError as error:
            logger.warning("memory unavailable (budget %d ms): %s", total, error)
            value, memory = empty(), "unavailable"
    elapsed = (time.monotonic() - started) * 1000
    return Timed(value=value, stale=not fresh, memory=memory, elapsed_ms=round(elapsed, 1))


# --- the prompt and recall, within the budget --------------------------------------------------


@dataclass(frozen=True, slots=True)
class PromptAnswer:
    """The whole memory section: the always-on notes, then the memory blocks."""

    text: str
    notes: list[Note]
    section: PromptSection
    stale: bool
    memory: MemoryState
    elapsed_ms: float


def prompt_answer(
    *, ctx: Context, as_of: date | None = None, count_usage: bool = True
) -> PromptAnswer:
    """The prompt's memory section for a bot in a room, now (within the time budget) or as it
    was at the end of `as_of` (from history). A section built now for a bot counts as a use of
    each fact in it (upkeep reads the counts); a person's preview passes `count_usage=False`."""
    started = time.monotonic()
    direct = ctx.room.kind == "direct"
    when = day_end(as_of) if as_of is not None else None
    notes = notes_for(bot=ctx.bot, person=ctx.person, direct=direct, when=when)
    if as_of is not None:
        timed = Timed(
            value=prompt_as_of(ctx=ctx, day=as_of), stale=False, memory="ok", elapsed_ms=0
        )
    else:
        timed = memory_read(
            scopes=[scope for _, scope in prompt_scopes(ctx)],
            read=lambda: prompt_build(ctx=ctx),
            empty=lambda: PromptSection(text="", blocks=[]),
            fold=True,  # the sync's query rides in the prompt's rule + versions statement
        )
    section = timed.value
    if count_usage and as_of is None:
        usage_note(prompted=[fact for block in section.blocks for fact in block.facts])
    text = notes_compose(notes, chars=settings.NOTES_PROMPT_CHARS) + section.text
    return PromptAnswer(
        text=text,
        notes=notes,
        section=section,
        stale=timed.stale,
        memory=timed.memory,
        elapsed_ms=round((time.monotonic() - started) * 1000, 1),
    )


def prompt_or_unavailable(
    *, open_context: Callable[[], Context], as_of: date | None = None
) -> PromptAnswer:
    """`prompt_answer` for the context `open_context()` opens, or, while the database can't be
    reached at all (the room can't even be checked), the section without memory marked
    `unavailable` (SPEC §5.2): a prompt never fails for want of memory. Refusals still raise."""
    started = time.monotonic()
    try:
        return prompt_answer(ctx=open_context(), as_of=as_of)
    except (OperationalError, InterfaceError) as error:
        logger.warning("prompt without memory: database unavailable: %s", error)
    return PromptAnswer(
        text="",
        notes=[],
        section=PromptSection(text="", blocks=[]),
        stale=False,
        memory="unavailable",
        elapsed_ms=round((time.monotonic() - started) * 1000, 1),
    )


def recall_answer(
    *,
    ctx: Context,
    query: str,
    limit: int | None = None,
    rerank: bool | None = None,
    explain: bool = False,
    expect: list[str] | None = None,
) -> Timed[RecallResult]:
    """Recall for a bot within the time budget (stale or unavailable rather than waiting);
    every fact returned counts as a use (upkeep reads the counts). `rerank`, `explain` and
    `expect`: see `recall_search`."""
    timed = memory_read(
        scopes=readable_scopes(ctx),
        read=lambda: recall_search(
            ctx=ctx, query=query, limit=limit, rerank=rerank, explain=explain, expect=expect
        ),
        empty=lambda: RecallResult(
            items=[], more=0, mode="lexical", note="Memory is unavailable right now."
        ),
        fold=True,  # the sync's query rides in recall's terms + versions statement
    )
    usage_note(recalled=timed.value.items)
    return timed
