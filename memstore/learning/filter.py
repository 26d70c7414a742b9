"""The free small-talk filter (SPEC §7): messages like "thanks!" or "ok" never reach a model.

Pure: no I/O, no Django.
"""

import re

MAX_SMALL_TALK_CHARS = 40
SMALL_TALK = frozenset(
    {
        "hi", "hey", "hello", "yo", "sup", "thanks", "thank you", "ty", "thx", "ok", "okay",
        "k", "kk", "cool", "nice", "great", "awesome", "perfect", "yes", "yep", "yeah", "no",
        "nope", "sure", "got it", "gotcha", "lol", "haha", "np", "done", "good", "bye",
    }
)  # fmt: skip
_TRAILING = re.compile(r"[\s!.…,~)\]]+$")
_SPACES = re.compile(r"\s+")


def is_small_talk(message: str) -> bool:
    """True for a message of at most 40 characters, without '?', that is one of the 32 phrases
    once lower-cased, stripped of trailing whitespace and ! . … , ~ ) ] and inner runs of space
    collapsed."""
    if len(message) > MAX_SMALL_TALK_CHARS or "?" in message:
        return False
    text = _TRAILING.sub("", message.lower())
    return _SPACES.sub(" ", text).strip() in SMALL_TALK
