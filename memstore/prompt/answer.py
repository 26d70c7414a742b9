"""The prompt's whole memory section as a bot or a person's preview gets it: the always-on
notes, then the memory blocks, built now within the reads' time budget
(`memstore.index.budget.memory_read`) or as it stood at the end of a day (from history).

When the budget runs out before the section is built, the answer is the last good section
built in this process for the same bot, room kind, person and scopes, marked `partial` (and
`stale`) with the reason, provided its scopes' files are exactly as they were when it was read
(same stats: a forget, an edit or an erasure since changes them, and then it is not used) and
it is at most LAST_GOOD_SECONDS old; with none, the section without memory, `unavailable`.

A stale section (files changed on disk are still being indexed) says how many facts it may be
missing (`memstore.recall.backlog`), in a line after the blocks and in place of each block's
"Nothing more on disk" (which counts only what is indexed).

Counting the section as a use of its facts is the bots' door's (`memstore.calls.prompt`): a
person's preview is a look, not a use.
"""

import hashlib
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import date

from django.conf import settings

from memstore.index.budget import MemoryState, Timed, memory_read
from memstore.index.sync import sync_check_start
from memstore.prompt.asof import day_end, prompt_as_of
from memstore.prompt.compose import NOTHING_MORE, PromptSection
from memstore.prompt.notes import Note, notes_compose, notes_for
from memstore.prompt.section import prompt_build, prompt_scopes
from memstore.recall.backlog import memory_backlog
from memstore.recall.jobs import backfill_wanted
from memstore.rooms.access import Context

LAST_GOOD_SECONDS = 300  # a last good section older than this is not offered
LAST_GOOD_MAX = 256  # sections kept per process (least recently built dropped first)
AS_IT_STOOD = "the section as it stood when last built, its files unchanged since"

_last_good: OrderedDict[tuple, tuple[dict, PromptSection, float]] = OrderedDict()
_last_good_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class PromptAnswer:
    """The whole memory section: the always-on notes, then the memory blocks."""

    text: str
    notes: list[Note]
    section: PromptSection
    stale: bool
    memory: MemoryState
    elapsed_ms: float
    partial_reason: str = ""  # why this is the section as it stood (the budget ran out)
    indexing: int = 0  # facts on disk not indexed yet, so possibly missing here

    @property
    def digest(self) -> str:
        """The section's digest (16 hex digits of SHA-256 over its text): a bot sends it back
        with report_exchange to say which section its reply was built with."""
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]


def prompt_answer(*, ctx: Context, as_of: date | None = None) -> PromptAnswer:
    """The prompt's memory section for a bot in a room, now (within the time budget) or as it
    was at the end of `as_of` (from history)."""
    started = time.monotonic()
    direct = ctx.room.kind == "direct"
    when = day_end(as_of) if as_of is not None else None
    notes = notes_for(bot=ctx.bot, person=ctx.person, direct=direct, when=when)
    scopes = [scope for _, scope in prompt_scopes(ctx)]
    if as_of is not None:
        timed = Timed(
            value=prompt_as_of(ctx=ctx, day=as_of), stale=False, memory="ok", elapsed_ms=0
        )
    else:
        key = (ctx.bot, ctx.room.kind, ctx.person, tuple(str(scope) for scope in scopes))
        timed = memory_read(
            scopes=scopes,
            read=lambda: _built_and_kept(ctx, key, scopes),
            empty=lambda: PromptSection(text="", blocks=[]),
            fold=True,  # the sync's query rides in the prompt's rule + versions statement
            new_facts=backfill_wanted,
            partial=lambda: _as_it_stood(key, scopes),
        )
    section, indexing = timed.value, 0
    if timed.stale and timed.memory == "ok":
        section, indexing = _backlog_told(section, scopes)
    text = notes_compose(notes, chars=settings.NOTES_PROMPT_CHARS) + section.text
    return PromptAnswer(
        text=text,
        notes=notes,
        section=section,
        stale=timed.stale,
        memory=timed.memory,
        elapsed_ms=round((time.monotonic() - started) * 1000, 1),
        partial_reason=_told(timed),
        indexing=indexing,
    )


def _backlog_told(section: PromptSection, scopes: list) -> tuple[PromptSection, int]:
    """The section saying how many facts are still being indexed (none claims "nothing
    more"), and that count."""
    backlog = memory_backlog(keys=[str(scope) for scope in scopes], meaning=False)
    if not (backlog.indexing or backlog.uncounted_files) or not section.text:
        return section, backlog.indexing
    told = f"{backlog.sentence().capitalize()}: this section may be missing some of them."
    text = section.text.replace(NOTHING_MORE, "Nothing more indexed yet for this block.")
    return replace(section, text=f"{text}\n{told}\n"), backlog.indexing


def _told(timed: Timed[PromptSection]) -> str:
    if timed.partial and timed.memory == "ok":
        return f"{timed.partial_reason}; {AS_IT_STOOD}"
    return timed.partial_reason


def _built_and_kept(ctx: Context, key: tuple, scopes: list) -> PromptSection:
    """The section built now, kept as the last good one with its files' stats taken before
    the read (a file changed meanwhile makes the stats older than the section: never used)."""
    stats = sync_check_start(scopes=scopes).on_disk
    section = prompt_build(ctx=ctx)
    with _last_good_lock:
        _last_good[key] = (stats, section, time.monotonic())
        _last_good.move_to_end(key)
        while len(_last_good) > LAST_GOOD_MAX:
            _last_good.popitem(last=False)
    return section


def _as_it_stood(key: tuple, scopes: list) -> PromptSection | None:
    """The last good section for this key while its files are as they were, else None."""
    with _last_good_lock:
        kept = _last_good.get(key)
    if kept is None or time.monotonic() - kept[2] > LAST_GOOD_SECONDS:
        return None
    stats, section, _ = kept
    return section if sync_check_start(scopes=scopes).on_disk == stats else None


def prompt_unavailable(started: float) -> PromptAnswer:
    """The section without memory, marked `unavailable` (the database can't be reached)."""
    return PromptAnswer(
        text="",
        notes=[],
        section=PromptSection(text="", blocks=[]),
        stale=False,
        memory="unavailable",
        elapsed_ms=round((time.monotonic() - started) * 1000, 1),
    )
