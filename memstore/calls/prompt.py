"""The bots' door for the prompt: the memory section a bot puts in its prompt, and whether it
changed since a version the bot holds. A section built for a bot counts as a use of each fact
in it (upkeep reads the counts), and is kept as its digest and fact ids for the exchange that
reports it (`memstore.learning.sources`: one statement); a person's preview
(`memstore.console.preview`) does neither.
"""

import logging
import time
from collections.abc import Callable
from datetime import date

from django.db import DatabaseError, InterfaceError, OperationalError

from memstore.learning.sources import prompt_served
from memstore.prompt.answer import PromptAnswer, prompt_answer, prompt_unavailable
from memstore.prompt.section import prompt_changes
from memstore.rooms.access import Context
from memstore.upkeep.usage import usage_note

__all__ = ["PromptAnswer", "prompt_changes", "prompt_or_unavailable"]

logger = logging.getLogger(__name__)


def prompt_or_unavailable(
    *, open_context: Callable[[], Context], as_of: date | None = None
) -> PromptAnswer:
    """`prompt_answer` for the context `open_context()` opens, counted as a use of its facts,
    or, while the database can't be reached at all (the room can't even be checked), the
    section without memory marked `unavailable`: a prompt never fails for want of memory.
    Refusals still raise."""
    started = time.monotonic()
    try:
        ctx = open_context()
        answer = prompt_answer(ctx=ctx, as_of=as_of)
    except (OperationalError, InterfaceError) as error:
        logger.warning("prompt without memory: database unavailable: %s", error)
        return prompt_unavailable(started)
    if as_of is None:
        facts = [fact for block in answer.section.blocks for fact in block.facts]
        usage_note(prompted=facts)
        if answer.memory == "ok":
            _served(ctx, answer.digest, facts)
    return answer


def _served(ctx: Context, digest: str, facts: list) -> None:
    # What shaped a reply is a record, not the reply: losing one never fails the prompt.
    try:
        prompt_served(bot=ctx.bot, room_id=ctx.room.id, digest=digest, facts=facts)
    except DatabaseError as error:
        logger.warning("served section not recorded: %s", error)
