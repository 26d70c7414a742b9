"""The people in the room and what of theirs the model may not see.

The learner is given the excluded topics of everyone who spoke recently to this bot in this
room (the person of the exchange, and in a group the others of its last `ROOM_WINDOW`
exchanges), read through `memstore.rules.controls`. Before a prompt is built, every sentence of
the exchange that touches one of those topics is replaced by a marker, and every turn of a
person who paused memory is replaced whole: the model is never sent either. `withheld` and
`turn_withheld` are pure; `room_people` reads the controls.

Does not: decide what is saved (the plan refuses a line on a topic all the same) or skip an
exchange of a paused person (the pipeline does, before any of this).
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memstore.learning.prompts import Turn
from memstore.models import Exchange
from memstore.rules.controls import Controls, controls_read
from memstore.rules.policy import excluded_topic

ROOM_WINDOW = 50  # a group's recent exchanges whose people count as in the room
TOPIC_MARK = "[withheld: touches a topic someone here asked not to be remembered]"
PAUSED_MARK = "[withheld: this person paused memory]"
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")


@dataclass(frozen=True, slots=True)
class RoomPeople:
    """The controls of the people in a room that the learner must honour."""

    topics: tuple[str, ...] = ()
    paused: frozenset[str] = frozenset()


def room_people(*, exchange: Exchange, own: Controls | None = None) -> RoomPeople:
    """The excluded topics and paused people of the room an exchange came from (`own`: the
    exchange's person's controls when already read). One query for the others' controls."""
    names = [exchange.person] if exchange.person else []
    if exchange.room_kind != "direct":
        recent = (
            Exchange.objects.filter(bot=exchange.bot, room_id=exchange.room_id)
            .exclude(person="")
            .order_by("-id")
            .values_list("person", flat=True)[:ROOM_WINDOW]
        )
        names += list(recent)
    controls = [own] if own is not None else []
    others = [n for n in dict.fromkeys(names) if own is None or n != own.person]
    if others:
        found = controls_read(people=others)
        controls += [found[name] for name in sorted(found)]
    topics = dict.fromkeys(t for c in controls for t in c.topics)
    return RoomPeople(
        topics=tuple(topics), paused=frozenset(c.person for c in controls if c.paused)
    )


def withheld(text: str, topics: Sequence[str]) -> str:
    """The text with every sentence that touches one of `topics` replaced by a marker."""
    if not topics or not excluded_topic(text, list(topics)):
        return text
    parts = _SENTENCE_END.split(text)
    seps = _SENTENCE_END.findall(text)
    kept = [TOPIC_MARK if excluded_topic(p, list(topics)) else p for p in parts]
    return "".join(part + sep for part, sep in zip(kept, [*seps, ""], strict=True))


def turn_withheld(turn: Turn, *, person: str, people: RoomPeople) -> Turn:
    """A turn as the model may see it: whole marker if its person paused, else topics withheld."""
    if person and person in people.paused:
        return Turn(message=PAUSED_MARK, reply=PAUSED_MARK)
    return Turn(
        message=withheld(turn.message, people.topics), reply=withheld(turn.reply, people.topics)
    )
