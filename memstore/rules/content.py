"""The one gate for text coming in: the content rules every save and edit obeys, whichever
door it came through (the bots' API and MCP, "remember that", summarize, the learner, importers,
the console, upkeep and restores).

`content_check` is called by the write services themselves (`fact_remember`, `fact_edit`, and so
every restore, console write, command, learner save and import), never by their callers: a rule
held in a caller's parameter is a rule some caller forgets. Whose rules apply is derived here:

- secrets are refused in every scope (a bot's own memory is team-wide once it joins a group),
  in the text and in every metadata value, alone and as its `key=value` pair (`src=`, imported
  `tags=`, any key a caller sets: `password=hunter2` is a password);
- the excluded topics of the person a user-scope shard belongs to, and of the person in the room
  (the writer names them), are refused; so is a text in any scope, from any room, that names a
  registered person together with one of their topics ("Sam is negotiating a higher salary");
- a text holding one of the workspace's sensitive keywords (`memstore.rules.sensitive`: the
  list staff saved in the console, else settings.SENSITIVE_KEYWORDS; any case, the keyword's
  own word forms) is refused in shared memory (a bot's own memory, team-wide; project
  memory; workspace memory) and allowed in a person's own user memory and in the own memory of
  a bot that keeps a private memory; the refusal says a keyword matched, not
  which, so the list is not spelled out to whoever probes it;
- workspace memory (scope server) holds no `visibility=private` fact: it is shared with
  everyone, and a shared memory is never made private again;
- while a person has paused memory, a learned save (`via=learner`) from a room they are in, or
  into their user memory, is refused; an explicit save (a bot asked to remember, the console, an
  import) still goes through, as the pause promises. A fact that names them kept anywhere but
  their own user memory is refused whoever saves it, unless they are the one saving it (the
  person in the room, or the console's writer): nothing new is kept about them elsewhere;
- instruction-shaped text (`memstore.rules.instructions`: "from now on, when anyone asks…,
  reply…", "every bot must…", "ignore previous instructions") is an order to every later
  conversation, not a fact: HeldForReview, and the write service records it in the review
  inbox (`memstore.store.held`), unless a person already accepted that very text there
  (`memstore.rules.withheld.instruction_keep`). A line written by hand meets the same detector
  when it is read: withheld from prompts and recall, and listed by Health.

The detectors are `memstore.rules.policy`, the controls and the topic test
`memstore.rules.controls`; this module only decides who they apply to.
"""

from memstore.errors import (
    HeldForReview,
    InvalidFact,
    MemoryPaused,
    MemstoreError,
    SecretRefused,
    SensitiveKeyword,
    TopicExcluded,
)
from memstore.facts.markdown import FactLine
from memstore.facts.paths import Shard
from memstore.models import Bot
from memstore.rules.controls import Controls, controls_read, names
from memstore.rules.instructions import instruction_kind
from memstore.rules.policy import secret_in_meta, secret_kind
from memstore.rules.sensitive import sensitive_in
from memstore.rules.withheld import instruction_kept

# The scopes a sensitive keyword keeps a memory out of: everything but a person's own.
PRIVATE_SCOPE_KINDS = frozenset({"user"})

# The learner checks the same rules before it asks to write (its plan records why a line was
# refused by these reasons); a refusal it makes itself is recorded as this error.
RULE_ERRORS: dict[str, type[MemstoreError]] = {
    "secret": SecretRefused,
    "topic": TopicExcluded,
    "sensitive": SensitiveKeyword,
    "instruction": HeldForReview,
}


def content_check(
    *,
    shard: Shard,
    fact: FactLine,
    person: str | None,
    via: str,
    controls: dict[str, Controls] | None = None,
    by: str = "",
) -> None:
    """The gate: raise SecretRefused, HeldForReview, TopicExcluded, SensitiveKeyword,
    MemoryPaused or InvalidFact (a private fact in workspace memory) if this fact may not be
    written. `person`: the person in the room; `by`: who writes (a console writer's name).
    `controls`: the people's controls as read already for this write (`controls_sql` with
    `content_people` and topics, parsed by `controls_parse`), else they are read here."""
    if shard.scope.kind == "server" and fact.meta.get("visibility") == "private":
        raise InvalidFact(
            "Workspace memory is shared with everyone: a fact there can't be private, and a "
            "shared memory can't be made private again. To take it back, erase it."
        )
    if kind := secret_kind(fact.text) or secret_in_meta(fact.meta):
        raise SecretRefused(
            f"This looks like {kind}; secrets are never saved to memory. "
            "Keep it in a password manager instead."
        )
    if (kind := instruction_kind(fact.body)) and not instruction_kept(fact.body):
        raise HeldForReview(
            f"This reads as an instruction to a model ({kind}), not a fact, so it was not "
            "written; write it as a fact about the world instead.",
            detail={"held": "instruction", "kind": kind},
        )
    about = set(content_people(shard=shard, person=person))
    if controls is None:
        controls = controls_read(people=sorted(about), with_topics=True)
    _people_check(shard, fact, about, via, controls, writers={person, by} - {None, ""})
    if sensitive_in(fact.text) and shard_shared(shard):
        raise SensitiveKeyword(
            f"A sensitive keyword of this workspace matched, so this can't be kept in shared "
            f"{shard.scope.kind} memory, which the whole team can read. Save it in the person's "
            "own memory instead (scope user, from their direct room)."
        )


def _people_check(
    shard: Shard,
    fact: FactLine,
    about: set[str],
    via: str,
    controls: dict[str, Controls],
    *,
    writers: set[str | None],
) -> None:
    # A person's pause and excluded topics, for every fact that names them or is about them.
    for name in sorted(controls):
        these = controls[name]
        if these.paused and via == "learner" and name in about:
            raise MemoryPaused(f"{name} paused memory: nothing new is learned from them.")
        if (
            these.paused
            and name not in writers
            and _owner(shard) != name
            and names(fact.text, name)
        ):
            # Someone else's fact about a paused person: the refusal names neither.
            raise MemoryPaused(
                "This names a person who paused memory: nothing new is kept about them, "
                "except what they save themselves."
            )
        if topic := these.topic_in(fact.text, about=name in about):
            # Someone else's topics are theirs to know: the refusal names neither them nor it.
            raise TopicExcluded(
                f"The person asked bots not to remember anything about {topic!r}."
                if name in about
                else "This names a person who asked bots not to remember anything on this topic."
            )


def content_people(*, shard: Shard, person: str | None) -> list[str]:
    """The people whose controls apply to every write to this shard from a room with `person`
    (everyone's excluded topics apply too: read them with `with_topics`)."""
    return sorted({name for name in (person, _owner(shard)) if name})


def shard_shared(shard: Shard) -> bool:
    """Whether a shard is shared memory, where a sensitive keyword is refused: anything but a
    person's own and the own memory of a bot that keeps a private memory (asked of the
    registry, so callers check `sensitive_in` first)."""
    if shard.scope.kind in PRIVATE_SCOPE_KINDS:
        return False
    if shard.scope.kind == "bot":
        return not Bot.objects.filter(slug=shard.scope.name, private_memory=True).exists()
    return True


def _owner(shard: Shard) -> str | None:
    return shard.scope.name if shard.scope.kind == "user" else None
