import pytest
from django.conf import settings

from memstore.learning.filter import is_small_talk


def small_talk(message: str) -> bool:
    return is_small_talk(
        message,
        max_chars=settings.LEARNING_SMALL_TALK_CHARS,
        phrases=frozenset(settings.LEARNING_SMALL_TALK),
    )


def test_the_defaults_are_the_spec_settings():
    assert settings.LEARNING_SMALL_TALK_CHARS == 40
    assert len(set(settings.LEARNING_SMALL_TALK)) == 32
    assert settings.LEARNING_EPISODE_EVERY == 6


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
    assert small_talk(message)


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
    assert not small_talk(message)


def test_the_forty_character_limit_counts_the_trimmed_message():
    assert small_talk("ok" + "!" * 38)  # 40 characters
    assert not small_talk("ok" + "!" * 39)  # 41
    assert small_talk(" " * 30 + "thanks" + " " * 30)  # 66 raw, 6 once trimmed


def test_the_phrases_and_the_limit_are_settings(settings):
    assert not is_small_talk(
        "cheers", max_chars=40, phrases=frozenset(settings.LEARNING_SMALL_TALK)
    )
    assert is_small_talk("cheers!", max_chars=40, phrases=frozenset({"cheers"}))
    assert not is_small_talk("thanks", max_chars=3, phrases=frozenset({"thanks"}))
