"""The prompt's whole memory section as a bot or a person's preview gets it: the always-on
notes, then the memory blocks, built now within the reads' time budget
(`memstore.index.budget.memory_read`) or as it stood at the end of a day (from history).

Counting the section as a use of its facts is the bots' door's (`memstore.calls.prompt`): a
person's preview is a look, not a use.
"""

import time
from dataclasses import dataclass
from datetime import date

from django.conf import settings

from memstore.index.budget import MemoryState, Timed, memory_read
from memstore.prompt.asof import day_end, prompt_as_of
from memstore.prompt.compose import PromptSection
from memstore.prompt.notes import Note, notes_compose, notes_for
from memstore.prompt.section import prompt_build, prompt_scopes
from memstore.recall.jobs import backfill_wanted
from memstore.rooms.access import Context


@dataclass(frozen=True, slots=True)
class PromptAnswer:
    """The whole memory section: the always-on notes, then the memory blocks."""

    text: str
    notes: list[Note]
    section: PromptSection
    stale: bool
    memory: MemoryState
    elapsed_ms: float


def prompt_answer(*, ctx: Context, as_of: date | None = None) -> PromptAnswer:
    """The prompt's memory section for a bot in a room, now (within the time budget) or as it
    was at the end of `as_of` (from history)."""
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
            new_facts=backfill_wanted,
        )
    section = timed.value
    text = notes_compose(notes, chars=settings.NOTES_PROMPT_CHARS) + section.text
    return PromptAnswer(
        text=text,
        notes=notes,
        section=section,
        stale=timed.stale,
        memory=timed.memory,
        elapsed_ms=round((time.monotonic() - started) * 1000, 1),
    )


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
