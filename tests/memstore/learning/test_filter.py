import pytest

from memstore.learning.filter import SMALL_TALK, is_small_talk


def test_the_list_has_the_32_phrases_of_the_spec():
    assert len(SMALL_TALK) == 32


@pytest.mark.parametrize(
    "message",
    [
        "thanks",
        "Thanks!",
        "THANK YOU!!!",
        "thank   you",
        "ok.",
        "ok…",
        "okay ~",
        "k",
        "got it, ",
        "lol)",
        "cool]",
        "  hi  ",
        "bye!\n",
        "Perfect!!! ...",
    ],
)
def test_small_talk_is_skipped(message):
    assert is_small_talk(message)


@pytest.mark.parametrize(
    "message",
    [
        "ok?",  # a question mark always goes to the model
        "thanks?!",
        "thanks, I moved to Lisbon",
        "ok :)",  # ':' is not stripped
        "okk",
        "thanks a lot",  # not one of the phrases
        "no " * 14,  # over 40 characters
        "",
        "🙂",
        "(ok)",  # only trailing brackets are stripped
    ],
)
def test_everything_else_is_not_small_talk(message):
    assert not is_small_talk(message)


def test_the_forty_character_limit_counts_the_raw_message():
    assert is_small_talk("ok" + "!" * 38)  # 40 characters
    assert not is_small_talk("ok" + "!" * 39)  # 41
