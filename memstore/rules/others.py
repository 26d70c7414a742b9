"""Another person's fact asked into shared memory: the one rule "remember that…" and the learner
both apply.

In a bot's own memory (what it keeps across every group room), a fact that names a registered
person other than the speaker, and that the speaker asked to be remembered, is not saved by
either path: it is held in the review inbox for that person (or an editor of the bot) to decide.
"Remember that…" (`memstore.learning.requested`) applies it to each fact asked for; the learner
(`memstore.learning.plan`) to each fact it would save from an exchange whose message asked to
remember something naming that person — an obeying model may say it in other words — and to an
episode whose turns asked so. Presence in the room is not consent: the memory reaches every
group room, so a person in this one is held for all the same.

The rule is that narrow on purpose: the speaker's own statements ("Bob prefers morning
meetings", said by Bob), and whatever an exchange says about people nobody asked to remember
anything about, are learned as ever (the content gate still applies to them).

Does not: decide where a fact goes, or hold instructions (`memstore.rules.instructions`).
"""

from collections.abc import Iterable
from dataclasses import dataclass

from memstore.facts.markdown import fact_identity
from memstore.models import Person
from memstore.rules.controls import names, words_of

REASON = "other_person"


@dataclass(frozen=True, slots=True)
class AskedOthers:
    """Who a speaker asked to be remembered about, besides themselves: `people` (registered
    names, sorted) and `facts`, the identities of the asked-for texts."""

    people: tuple[str, ...] = ()
    facts: frozenset[str] = frozenset()

    def held(self, text: str) -> str | None:
        """The first of `people` the text names: then shared memory holds it, never saves it."""
        return next((person for person in self.people if names(text, person)), None)

    def asked(self, text: str) -> bool:
        """Whether the text is one of the facts asked for, word for word (already held)."""
        return fact_identity(text) in self.facts


NOBODY = AskedOthers()


def asked_others(asked: Iterable[str], *, speaker: str | None) -> AskedOthers:
    """The registered people, other than the speaker, whom the facts the speaker asked to be
    remembered name (one query when anything was asked; none otherwise)."""
    asked = [text for text in asked if text.strip()]
    if not asked:
        return NOBODY
    wanted = {word for text in asked for word in words_of(text)}
    people = sorted(
        name
        for name in Person.objects.values_list("name", flat=True)
        if (speaker is None or name.lower() != speaker.lower())
        and words_of(name)[:1]
        and words_of(name)[0] in wanted
        and any(names(text, name) for text in asked)
    )
    return AskedOthers(people=tuple(people), facts=frozenset(map(fact_identity, asked)))


def held_detail(person: str) -> str:
    """Why a fact about `person` waits in the review inbox instead of shared memory."""
    return (
        f"It is about someone else ({person}), and the speaker asked for it to be kept in "
        f"memory every group room shares: not saved; {person} (or an editor of this bot) "
        "decides in the review inbox."
    )
