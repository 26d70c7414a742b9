"""The content rules every save and edit obeys, whichever front door it came through (SPEC §4).

`content_check` is called by the write services themselves (`fact_remember`, `fact_edit`, and so
every restore, console write, command, learner save and import), never by their callers: a rule
held in a caller's parameter is a rule some caller forgets. Whose rules apply is derived here:

- secrets are refused in every scope (a bot's own memory is team-wide once it joins a group),
  in the text and in every metadata value, alone and as its `key=value` pair (`src=`, imported
  `tags=`, any key a caller sets: `password=hunter2` is a password);
- the excluded topics of the person a user-scope shard belongs to, and of the person in the room
  (the writer names them), are refused;
- while a person has paused memory, a learned save (`via=learner`) from a room they are in is
  refused in any scope, and a bot's save or edit (`via` api, tool or learner) into their own user
  memory is refused too; the person's own console edits (and staff's) still go through.

The detectors themselves are `memstore.rules.policy`; this module only decides who they apply to.
"""

from functools import reduce
from operator import or_

from django.db.models.functions import Coalesce

from memstore.errors import MemoryPaused, MemstoreError, SecretRefused, TopicExcluded
from memstore.facts.markdown import FactLine
from memstore.facts.paths import Shard
from memstore.models import PersonSettings
from memstore.rules.controls import settings_of
from memstore.rules.policy import excluded_topic, secret_in_meta, secret_kind
from memstore.vocabulary import Via

# The ways a bot writes (as opposed to a person in the console, an import, a hand edit).
BOT_VIAS: tuple[Via, ...] = ("api", "tool", "learner")

# The learner checks the same rules before it asks to write (its plan records why a line was
# refused by these reasons); a refusal it makes itself is recorded as this error.
RULE_ERRORS: dict[str, type[MemstoreError]] = {"secret": SecretRefused, "topic": TopicExcluded}


def content_check(*, shard: Shard, fact: FactLine, person: str | None, via: str) -> None:
    """Raise SecretRefused, TopicExcluded or MemoryPaused if this fact may not be written."""
    if kind := secret_kind(fact.text) or secret_in_meta(fact.meta):
        raise SecretRefused(
            f"This looks like {kind}; secrets are never saved to memory. "
            "Keep it in a password manager instead."
        )
    people = {name for name in (person, _owner(shard)) if name}
    if not people:
        return
    found = PersonSettings.objects.filter(reduce(or_, (settings_of(name) for name in people)))
    rows = found.annotate(who=Coalesce("user__person__name", "user__username")).values_list(
        "who", "paused", "excluded_topics"
    )
    owner = _owner(shard)
    for name, paused, topics in sorted(rows):
        if paused and via == "learner":
            raise MemoryPaused(f"{name} paused memory: nothing new is learned from them.")
        if paused and via in BOT_VIAS and name == owner:
            raise MemoryPaused(
                f"{name} paused memory: bots may not save anything about them until they resume it."
            )
        if topic := excluded_topic(fact.text, [str(t) for t in topics or ()]):
            raise TopicExcluded(f"The person asked bots not to remember anything about {topic!r}.")


def _owner(shard: Shard) -> str | None:
    return shard.scope.name if shard.scope.kind == "user" else None
