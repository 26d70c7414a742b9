"""Whether two facts differ in meaning however alike they read: the one rule every merge obeys
(a suggested duplicate, upkeep's own merge, a person's Merge button).

Two texts differ when one holds, and the other lacks, any of:

- a negation: "not", "never", "no longer", "-n't", "without", a verb of refusal ("hates",
  "avoids"), or a word the other has without its "un-"/"dis-"/"non-" ("available" /
  "unavailable");
- a number: digits or a number word, compared as values ("two" = "2", "5,000" = "5000"),
  or a quantity word ("always", "sometimes", "every", "only", "twice");
- a date or time: a month, a weekday, a season, "yesterday", "last week", "3 weeks ago",
  "weekly", "morning";
- a name: a capitalised word not opening the sentence (or an opening one that reads as a name:
  "Gina lost her job"), unless the other text has the same word in any case;
- a verb of state, by its sense: cancelled / postponed / moved / started / finished / quit ...
  ("finished" and "completed" are one sense, "cancelled" and "postponed" two), or an intent
  or a past ("plans to", "wants to", "used to": a plan is not a deed);
- a word of direction or place, counted: "moved to" / "moved from", "in Quito" / "near Quito".

A name includes a word naming someone by a tie ("Quim" / "Quim's mother": another person).

Pure: word lists and set comparisons, no I/O. The callers decide what a difference blocks.
"""

import re
from collections import Counter
from functools import lru_cache
from typing import NamedTuple

from memstore.upkeep.lexicon import (
    DATE_WORDS,
    INTENT,
    MONTHS_CAPITALISED,
    NEGATIONS,
    NOT_NAMES,
    NUMBER_WORDS,
    PAST_MARKS,
    QUANTITIES,
    REFUSALS,
    RELATIONS,
    STATE_FORMS,
    WHO,
)

FAMILIES = ("negation", "number", "date", "name", "state", "relation")
_TOKEN_RE = re.compile(r"\d+(?:[.,:/]\d+)*(?:st|nd|rd|th|am|pm|k|s)?|[^\W\d_]+(?:['’][^\W\d_]+)*")
_SENTENCE_END = re.compile(r"[.!?;:]\s+$")
_PREFIXES = ("un", "dis", "non", "in", "im", "ir", "il")
_CACHE = 131_072


def differences(a: str, b: str) -> tuple[str, ...]:
    """The families (of FAMILIES) in which the two texts differ, in that order; () if none."""
    fa, fb = _features(a), _features(b)
    found = {
        "negation": fa.negation != fb.negation or _unprefixed(a, b),
        "number": fa.numbers != fb.numbers,
        "date": fa.dates != fb.dates,
        "name": _names_differ(a, b),
        "state": fa.states != fb.states,
        "relation": fa.relations != fb.relations,
    }
    return tuple(family for family in FAMILIES if found[family])


def merge_refusal(a: str, b: str) -> str | None:
    """Why two facts must not be merged (a sentence naming what differs), or None."""
    families = differences(a, b)
    if not families:
        return None
    what = {
        "negation": "a negation",
        "number": "a number",
        "date": "a date",
        "name": "a name",
        "state": "a verb of state",
        "relation": "a word of direction or place",
    }
    said = [what[f] for f in families]
    listed = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
    return f"They differ in {listed}: they say different things."


@lru_cache(maxsize=_CACHE)
def _tokens(text: str) -> tuple[tuple[str, bool, bool], ...]:
    """(lower-cased token, capitalised, opens a sentence) for each token of the text."""
    out = []
    for match in _TOKEN_RE.finditer(text):
        token = match.group().replace("’", "'")
        before = text[: match.start()]
        opens = not before.strip() or bool(_SENTENCE_END.search(before))
        out.append((token.lower(), token[:1].isupper(), opens))
    return tuple(out)


def _plain(word: str) -> str:
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word


class _Features(NamedTuple):
    negation: tuple[bool, frozenset[str]]  # negated at all, and the verbs of refusal
    numbers: frozenset[str]
    dates: frozenset[str]
    states: frozenset[str]  # senses of the verbs of state, "intent", "past"
    relations: tuple[tuple[str, int], ...]  # words of direction or place, counted


@lru_cache(maxsize=_CACHE)
def _features(text: str) -> _Features:
    tokens = _tokens(text)
    lower = [t for t, _, _ in tokens]
    negated = any(t in NEGATIONS or t.endswith("n't") for t in lower)
    refusals = frozenset(REFUSALS[t] for t in lower if t in REFUSALS)
    numbers, dates, states = set(), set(), set()
    for i, (token, capital, _) in enumerate(tokens):
        if token[0].isdigit():
            numbers.add(_number(token))
        elif token in NUMBER_WORDS:
            numbers.add(NUMBER_WORDS[token])
        elif token in QUANTITIES:
            numbers.add(token)
        if token in DATE_WORDS or (capital and token in MONTHS_CAPITALISED):
            dates.add(_plain(token))
        if token in STATE_FORMS:
            states.add(STATE_FORMS[token])
        elif token in INTENT:
            states.add("intent")
        elif token in PAST_MARKS or (token == "used" and lower[i + 1 : i + 2] == ["to"]):
            states.add("past")
    relations = tuple(sorted(Counter(t for t in lower if t in RELATIONS).items()))
    return _Features(
        (negated, refusals), frozenset(numbers), frozenset(dates), frozenset(states), relations
    )


def _number(token: str) -> str:
    token = token.replace(",", "")
    for suffix in ("st", "nd", "rd", "th"):  # "3rd" is the value 3
        if token.endswith(suffix) and token[: -len(suffix)].isdigit():
            return token[: -len(suffix)]
    return token


@lru_cache(maxsize=_CACHE)
def _names(text: str) -> frozenset[str]:
    """Capitalised words that read as names: not opening a sentence, nor a common word or a
    month; an opening word too when it is followed by a verb-like word or a possessive."""
    tokens = _tokens(text)
    found = set()
    for i, (token, capital, opens) in enumerate(tokens):
        if not capital or token in NOT_NAMES or token in MONTHS_CAPITALISED or len(token) < 2:
            continue
        if opens and not _opening_name(token, tokens[i + 1 : i + 2]):
            continue
        found.add(_plain(token))
    found.update(t for t in (_plain(t) for t, _, _ in tokens) if t in WHO)
    return frozenset(found)


def _opening_name(token: str, following: tuple[tuple[str, bool, bool], ...]) -> bool:
    # "Gina lost her job", "Jon's studio": a name. "Prefers dark mode": a verb, not a name.
    if token.endswith("'s"):
        return True
    if token.endswith("s") and not token.endswith("ss"):
        return False  # "Prefers", "Likes", "Uses": a third-person verb opening a note
    if not following:
        return False
    nxt = following[0][0]
    return not following[0][1] and nxt not in NOT_NAMES and not nxt[0].isdigit()


@lru_cache(maxsize=_CACHE)
def _words(text: str) -> frozenset[str]:
    return frozenset(_plain(t) for t, _, _ in _tokens(text))


def _names_differ(a: str, b: str) -> bool:
    wa, wb = _words(a), _words(b)
    return bool(_names(a) - wb or _names(b) - wa)


def _unprefixed(a: str, b: str) -> bool:
    """One text has a word the other has with a negating prefix ("unavailable")."""
    wa, wb = _words(a), _words(b)
    for mine, theirs in ((wa - wb, wb), (wb - wa, wa)):
        for word in mine:
            for prefix in _PREFIXES:
                rest = word[len(prefix) :]
                if word.startswith(prefix) and len(rest) >= 4 and rest in theirs:
                    return True
    return False


def features_clear() -> None:
    """Forget the cached features (a pass's end)."""
    for cached in (_tokens, _features, _names, _words):
        cached.cache_clear()
