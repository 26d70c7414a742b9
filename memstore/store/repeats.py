"""Lessons said again: a save of a lesson (a `type=learning` fact) in a bot's own memory that
met the fact already stored wrote nothing, so it is recorded here (`memstore.models.LessonRepeat`)
for `memstore.prompt.lessons` to count.

`repeats_recorded` wraps the one save service (`memstore.store.services.fact_remember`), so a
repeat counts whichever door it came in by (the API, MCP, the console, the learner, an import).
The learner's "already known" proposals never reach the save (it records them itself), so
nothing is counted twice.

Does not: decide what recurs, or erase the records (`memstore.privacy`).
"""

import functools
from collections.abc import Callable

from memstore.facts.records import StoredFact
from memstore.models import LessonRepeat

LESSON_TYPE = "learning"  # the `type=` of a fact that is a lesson


def repeats_recorded(save: Callable[..., StoredFact]) -> Callable[..., StoredFact]:
    """Record a save that found a lesson of a bot's own memory already stored."""

    @functools.wraps(save)
    def wrapper(**kwargs) -> StoredFact:
        stored = save(**kwargs)
        if stored.existed:
            repeat_record(stored, via=str(kwargs.get("via", "api")))
        return stored

    return wrapper


def repeat_record(stored: StoredFact, *, via: str) -> LessonRepeat | None:
    """The record of a save that met `stored`, when it is a lesson in a bot's own memory."""
    scope = stored.parsed_scope
    if scope.kind != "bot" or stored.meta.get("type") != LESSON_TYPE:
        return None
    return LessonRepeat.objects.create(
        bot=scope.name, scope_key=str(scope), fact_id=stored.fact_id, text=stored.body, via=via
    )
