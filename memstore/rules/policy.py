"""Content rules applied before anything is written: secrets are never stored (in any scope),
and a person's excluded topics stay out of memory altogether. Pure functions, no I/O.

Every text is normalised first (NFKC, so full-width and compatibility letters become plain
ones; zero-width and other invisible format characters removed), so "pass\u200bword" or a
full-width "ｐａｓｓｗｏｒｄ" is read as "password". Excluded topics match whole words in any
case and any word form: both sides are stemmed (Snowball English), so "divorce" also matches
"divorced" and "divorcing". The rules themselves live in
`memstore.rules.secrets`. A refusal names the kind of secret ("a password", "a Stripe Access
Key"), never the secret. This module does not decide which writes are checked: the write path
that calls it does.
"""

import re
import unicodedata
from collections.abc import Mapping

import snowballstemmer

from memstore.rules.secrets import RULES

_WORD = re.compile(r"\w+")
_STEMMER = snowballstemmer.stemmer("english")

# Zero-width and other invisible characters someone may slip into a word to dodge a rule.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]"
)


def normalise(text: str) -> str:
    """The text as the rules read it: NFKC, invisible format characters removed."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))


def secret_kind(text: str) -> str | None:
    """What kind of secret the text seems to contain ('a password', …), or None."""
    text = normalise(text)
    for rule in RULES:
        for match in rule.pattern.finditer(text):
            if rule.check is None or rule.check(match):
                return rule.kind
    return None


def secret_in_meta(meta: Mapping[str, object] | None) -> str | None:
    """What kind of secret a metadata value (or `key=value` pair) holds, or None."""
    for key, value in (meta or {}).items():
        text = str(value)
        if kind := secret_kind(text) or secret_kind(f"{key}={text}"):
            return kind
    return None


def excluded_topic(text: str, topics: list[str]) -> str | None:
    """The first excluded topic the text mentions (whole words, any case, any word form), or
    None. A topic of several words matches those words in that order, side by side."""
    stems = _stems(text)
    for topic in topics:
        wanted = _stems(topic)
        size = len(wanted)
        if size and any(stems[i : i + size] == wanted for i in range(len(stems) - size + 1)):
            return topic
    return None


def _stems(text: str) -> list[str]:
    # Word stems of the normalised text: "Divorced" and "divorcing" both read "divorc".
    return _STEMMER.stemWords(_WORD.findall(normalise(text).lower()))
