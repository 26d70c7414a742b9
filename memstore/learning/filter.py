"""The free small-talk filter: messages like "thanks!" or "ok" never reach a model.

The length limit and the phrases are settings (LEARNING_SMALL_TALK_CHARS, LEARNING_SMALL_TALK).
Pure: no I/O; the caller passes them in.
"""

import re
from collections.abc import Collection

_TRAILING = re.compile(r"[\s!.…,~)\]]+$")
_SPACES = re.compile(r"\s+")


def is_small_talk(message: str, *, max_chars: int, phrases: Collection[str]) -> bool:
    """True for a message of at most `max_chars` characters once trimmed, without '?', that is
    one of `phrases` once lower-cased, stripped of trailing whitespace and ! . … , ~ ) ] and
    inner runs of space collapsed."""
    trimmed = message.strip()
    if len(trimmed) > max_chars or "?" in trimmed:
        return False
    text = _TRAILING.sub("", trimmed.lower())
    return _SPACES.sub(" ", text).strip() in phrases
