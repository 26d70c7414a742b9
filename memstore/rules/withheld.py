"""What is withheld when memory is read: the one read-time rule the prompt section, recall, the
learner's known facts, Recent changes and the console's reach page all apply.

A fact is withheld, with its reason, when:

    topic    it touches an excluded topic of the person it is about: any fact of their user
             memory, or a fact anywhere (bot, team-wide, project memory) that names them
             ("Sam's salary band is L5" once sam excluded "salary"), whoever is reading;
    paused   the person in the direct room paused memory: their user memory, and the private
             facts (visibility=private) that only a direct room would show;
    secret   `memstore.rules.policy.secret_kind` flags its text or a metadata value (a line
             written by hand, or saved before a rule existed), until a person erases it or keeps
             it (`secret_keep`: the detector was wrong; the line is shown again);
    instruction  `memstore.rules.instructions.instruction_kind` reads it as an order to a model
             ("ignore all previous instructions", "from now on, reply…"): a line written by
             hand, or saved before the rule existed, speaks to no prompt until a person accepts
             that text (`instruction_keep`, as the review inbox does) or erases it; Health
             lists it meanwhile.

These are the rules the write path refuses at save time (`memstore.rules.content`), applied to
what is already on disk. `withholding_for` reads what the rule needs in one query (the controls
of the person in the room and of everyone who excluded a topic); the kept lines are read only
when a fact is flagged. The detector's verdict on a text is remembered per process, so a prompt
built again checks its facts for the price of a dictionary lookup each.

Does not: decide who may read a scope (`memstore.rooms.access`), or write anything but keep
decisions.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from memstore.facts.markdown import fact_identity
from memstore.facts.paths import scope_split
from memstore.facts.records import StoredFact
from memstore.models import Bot, ProposalReview
from memstore.rules.controls import (
    Controls,
    controls_parse,
    controls_read,
    controls_sql,
    names,
    words_of,
)
from memstore.rules.instructions import instruction_kind
from memstore.rules.policy import secret_in_meta, secret_kind
from memstore.rules.sensitive import sensitive_in

_TAG = re.compile(r"\[(?:note|episode)\]\s*")
Reason = Literal["topic", "paused", "secret", "instruction", "sensitive"]
KEEP_SOURCE = "secret"  # ProposalReview.source of a keep decision; ref: the fact's identity
INSTRUCTION_SOURCE = "instruction"  # the same for instruction-shaped text a person accepted
KEPT = "kept"


@dataclass
class Withholding:
    """The rule for one read: the person in the room (direct rooms), whether they paused
    memory, and everyone's excluded topics. `reason(fact)` says why a fact is withheld."""

    person: str | None = None
    paused: bool = False
    topics: tuple[Controls, ...] = ()  # everyone who excluded a topic or paused memory
    _kept: frozenset[str] | None = field(default=None, repr=False)
    _by_word: dict[str, list[Controls]] | None = field(default=None, repr=False)

    @property
    def secrets_only(self) -> bool:
        """Nobody is paused here and nobody excluded a topic: only flagged lines are withheld."""
        return not self.paused and not self.topics

    def reason(self, fact: StoredFact, *, flagged: bool | None = None) -> Reason | None:
        """Why this fact is withheld from the read, or None when it may be shown. `flagged`:
        whether the secret detector flags it, when the caller worked that out already."""
        kind, name = scope_split(fact.scope)
        if kind != "user" and sensitive_in(fact.text) and not _private_bot(kind, name):
            return "sensitive"  # written by hand into shared memory: the gate refuses a save
        if self.secrets_only:
            return self._secret(fact, flagged)
        about_person = kind == "user" and self.person is not None and name == self.person
        if self.paused and (about_person or fact.visibility == "private"):
            return "paused"
        if self._names_paused(fact.text, owner=name if kind == "user" else None):
            return "paused"
        if self.text_reason(fact.text, about=name if kind == "user" else None):
            return "topic"
        return self._secret(fact, flagged)

    def text_reason(self, text: str, *, about: str | None = None) -> Reason | None:
        """Topic, when the text touches an excluded topic of a person it names, or of `about`
        (the person it is about already: whose user memory holds it, whose room said it)."""
        for controls in self._touching(text, about):
            if controls.topic_in(text, about=controls.person == about):
                return "topic"
        return None

    def _names_paused(self, text: str, *, owner: str | None) -> bool:
        # A fact outside a paused person's own memory that names them: written by hand, or
        # before they paused, it is held back like what the gate now refuses to store.
        return any(
            c.paused and c.person != owner and names(text, c.person)
            for c in self._touching(text, None)
        )

    def _secret(self, fact: StoredFact, flagged: bool | None) -> Reason | None:
        if flagged is None:
            flagged = fact_flag(fact) is not None
        if not flagged:
            return None
        if secret_flag(fact) is not None:
            return "secret" if fact.fact_id not in self.kept else None
        return None if fact_identity(fact.body) in self.kept else "instruction"

    def shown(self, facts: Iterable[StoredFact]) -> list[StoredFact]:
        """The facts not withheld, in order."""
        return [fact for fact in facts if self.reason(fact) is None]

    def _touching(self, text: str, owner: str | None) -> list[Controls]:
        # Only people whose name's first word is in the text (or whose user memory this is)
        # are tested further: one pass over the text's words, whoever excluded topics.
        if not self.topics:
            return []
        if self._by_word is None:
            self._by_word = {}
            for controls in self.topics:
                first = words_of(controls.person)[:1]
                self._by_word.setdefault(first[0] if first else "", []).append(controls)
        found = [c for c in self.topics if c.person == owner] if owner else []
        for word in set(words_of(text)):
            found += self._by_word.get(word, ())
        return found

    @property
    def kept(self) -> frozenset[str]:
        """Identities of flagged lines a person kept (read on first need)."""
        if self._kept is None:
            self._kept = secrets_kept()
        return self._kept


def _private_bot(kind: str, name: str) -> bool:
    # A bot that keeps a private memory may hold what shared memory may not (asked only once a
    # sensitive keyword matched, so rarely).
    return kind == "bot" and Bot.objects.filter(slug=name, private_memory=True).exists()


def withholding_for(*, person: str | None) -> Withholding:
    """The rule for a read in a room with this person (a direct room's; None elsewhere)."""
    people = [person] if person else []
    return _withholding(person, controls_read(people=people, with_topics=True))


def withholding_sql(*, person: str | None) -> tuple[str, list]:
    """`withholding_for`'s one statement (a JSON value) and parameters, for a caller to fold
    into a statement of its own; `withholding_parse` turns its value into the rule."""
    return controls_sql(people=[person] if person else [], with_topics=True)


def withholding_parse(value, *, person: str | None) -> Withholding:
    """The rule from the value `withholding_sql` selected."""
    return _withholding(person, controls_parse(value, people=[person] if person else []))


def _withholding(person: str | None, controls: dict[str, Controls]) -> Withholding:
    mine = controls.get(person) if person else None
    return Withholding(
        person=person,
        paused=bool(mine and mine.paused),
        topics=tuple(c for _, c in sorted(controls.items()) if c.topics or c.paused),
    )


def fact_flag(fact: StoredFact) -> str | None:
    """What a read withholds a stored fact for by its text alone: the kind of secret the
    detector sees in it, else the kind of instruction it reads as, else None (remembered)."""
    return _flagged(fact.text, _meta_key(fact.meta)) or _instruction(fact.text)


def secret_flag(fact: StoredFact) -> str | None:
    """What kind of secret the detector sees in this stored fact's text or metadata, or None."""
    return _flagged(fact.text, _meta_key(fact.meta))


def line_flagged(text: str, meta: dict | None = None) -> str | None:
    """What kind of secret the detector sees in a text (a fact's, or a history line's) or its
    metadata, or None; remembered per text like every verdict here."""
    return _flagged(text, _meta_key(meta))


def secrets_kept() -> frozenset[str]:
    """The identities of flagged lines a person decided to keep (a secret the detector was
    wrong about, instruction-shaped text accepted)."""
    rows = ProposalReview.objects.filter(
        source__in=(KEEP_SOURCE, INSTRUCTION_SOURCE), decision=KEPT
    )
    return frozenset(rows.values_list("ref", flat=True))


def secret_keep(*, fact: StoredFact, by: str) -> None:
    """Record that a person keeps a flagged line (the detector was wrong): it is shown again in
    prompts, recall and Recent changes. Keeping one already kept changes nothing."""
    ProposalReview.objects.get_or_create(
        source=KEEP_SOURCE,
        ref=fact.fact_id,
        defaults={"bot": fact.shard_bot, "decision": KEPT, "text": fact.text, "by": by},
    )


def instruction_kept(text: str) -> bool:
    """Whether a person accepted this instruction-shaped text (a fact's text without its tier
    tag): the gate lets it be saved again, and reads show it."""
    rows = ProposalReview.objects.filter(
        source=INSTRUCTION_SOURCE, decision=KEPT, ref=fact_identity(text)
    )
    return rows.exists()


def instruction_keep(*, text: str, bot: str, by: str) -> None:
    """Record that a person accepted instruction-shaped text (in the review inbox): it may be
    saved, and is shown in prompts and recall. Accepting it again changes nothing."""
    ProposalReview.objects.get_or_create(
        source=INSTRUCTION_SOURCE,
        ref=fact_identity(text),
        defaults={"bot": bot, "decision": KEPT, "text": text, "by": by},
    )


def _meta_key(meta: dict | None) -> tuple[tuple[str, str], ...]:
    return tuple((str(k), str(v)) for k, v in (meta or {}).items())


@lru_cache(maxsize=32_768)
def _instruction(text: str) -> str | None:
    # A fact's text with its tier tag ("[note] …"), read without it; remembered per text.
    match = _TAG.match(text)
    return instruction_kind(text[match.end() :] if match else text)


@lru_cache(maxsize=32_768)
def _flagged(text: str, meta: tuple[tuple[str, str], ...]) -> str | None:
    # The write path's test (`memstore.rules.content`), remembered per text and metadata: the
    # detector costs ~70 µs a fact, a lookup well under 1 µs.
    return secret_kind(text) or (secret_in_meta(dict(meta)) if meta else None)
