"""What of an exchange the model may see (`memstore.learning.room`, pure part): sentences that
touch an excluded topic and a paused person's turns are replaced by markers, the rest is kept
byte for byte."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstore.learning.prompts import Turn
from memstore.learning.room import PAUSED_MARK, TOPIC_MARK, RoomPeople, turn_withheld, withheld
from memstore.rules.policy import excluded_topic


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Lunch at noon?", "Lunch at noon?"),
        ("Sam's bonus band is L5. Lunch at noon?", f"{TOPIC_MARK} Lunch at noon?"),
        ("Book trains!\nHis bonuses went up\nThanks", f"Book trains!\n{TOPIC_MARK}\nThanks"),
        ("BONUS talks are on Monday", TOPIC_MARK),
    ],
)
def test_sentences_on_a_topic_are_withheld(text, expected):
    assert withheld(text, ["bonus"]) == expected


def test_no_topics_keeps_everything():
    assert withheld("Sam's bonus band is L5.", []) == "Sam's bonus band is L5."


def test_a_paused_persons_turn_is_withheld_whole():
    people = RoomPeople(topics=("bonus",), paused=frozenset({"sam"}))
    turn = Turn(message="My bonus is fine. I moved.", reply="Noted, you moved.")
    assert turn_withheld(turn, person="sam", people=people) == Turn(PAUSED_MARK, PAUSED_MARK)
    assert turn_withheld(turn, person="ann", people=people) == Turn(
        f"{TOPIC_MARK} I moved.", "Noted, you moved."
    )


_WORDS = st.sampled_from(["bonus", "bonuses", "Lisbon", "moved", "the", "band", "L5", "ok"])
_ENDS = st.sampled_from([" ", ". ", "! ", "\n", "? "])


@given(st.lists(st.tuples(_WORDS, _ENDS), max_size=30))
def test_what_is_left_never_touches_the_topic(pieces):
    text = "".join(word + end for word, end in pieces)
    assert excluded_topic(withheld(text, ["bonus"]), ["bonus"]) is None
