"""Sensitive keywords: the words and phrases that keep a memory out of shared memory, and the
one test of a text against them (`sensitive_in`, `sensitive_any` for many texts; the write gate
`memstore.rules.content` and the read rule `memstore.rules.withheld` both ask it).

Which list is in force: the workspace's own, once staff saved one in the console (Sensitive
keywords), kept in `MEMORY_ROOT/workspace/settings/sensitive-keywords.txt` (one keyword or
phrase a line, `#` starts a comment, a hand edit counts); until then `settings.SENSITIVE_KEYWORDS`,
the default. The saved list replaces the default whole (it starts as a copy of it); deleting
the file, or *Reset to default* in the console, goes back to the setting. A saved empty list
turns the check off, as an empty setting does. A process re-reads the file when its
modification time changed, looked at most once a second (a save in this process is seen at
once, in another within a second).

A keyword matches whole words in any case, in its own word forms only: a plural, a past and an
-ing form ("lawsuit" matches "lawsuits", "diagnose" matches "diagnosed", "sue" matches "suing",
"surgery" matches "surgeries"), never a word made from it that means something else
("confidential" does not match "confidentiality", "diagnosis" not "diagnostics"). A phrase
matches its words side by side, each in its forms ("home address" matches "home addresses").
`{number}` in a phrase stands for any number ("lives at {number}" holds "lives at 22 Baker
Street", not "the config lives at /etc"). Words whose everyday use at work is not private are
listed only in the phrases that make them so: "an operation on his knee" is held, "the
operations team" is not.

Does not: decide which scopes are shared (`memstore.rules.content.shard_shared`), or check a
person's excluded topics (`memstore.rules.policy.excluded_topic`, which stems more broadly).
"""

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.db import transaction

from memstore.errors import InvalidTopic
from memstore.facts.files import write_atomic
from memstore.facts.locks import note_lock
from memstore.facts.paths import memory_root
from memstore.rules.normalise import fold

KEYWORDS_FILE = "workspace/settings/sensitive-keywords.txt"
MAX_KEYWORDS, MAX_KEYWORD_CHARS = 500, 80
_RECHECK_SECONDS = 1.0
_WORD = re.compile(r"\w+")
NUMBER = "{number}"  # in a phrase: any number ("lives at {number}")
_KEYWORD_WORD = re.compile(r"\{number\}|\w+")
_HEADER = (
    "# Sensitive keywords of this workspace: one word or phrase a line (any case; plurals, past\n"
    "# and -ing forms match too). A memory holding one is kept out of shared memory.\n"
    "# Edited in the console (Sensitive keywords); delete this file to use the default list.\n"
)


@dataclass(frozen=True, slots=True)
class KeywordList:
    """The list in force, and whether it is the workspace's own (else the setting's)."""

    words: tuple[str, ...]
    saved: bool


def sensitive_in(text: str) -> bool:
    """Whether the text holds one of the workspace's sensitive keywords in force (whole words,
    any case, the keyword's own word forms). Remembered per text and list: every read asks."""
    words = keywords_in_force().words
    return bool(words) and _sensitive(text, words)


def sensitive_any(texts: Iterable[str]) -> bool:
    """Whether any of the texts holds a keyword in force: `sensitive_in` for many texts, the
    list looked up once (a prompt asks it for every fact of a shared block)."""
    words = keywords_in_force().words
    return bool(words) and any(_sensitive(text, words) for text in texts)


def keywords_in_force() -> KeywordList:
    """The workspace's saved list if staff saved one, else settings.SENSITIVE_KEYWORDS."""
    saved = _saved_list()
    if saved is not None:
        return KeywordList(words=saved, saved=True)
    return KeywordList(words=_default(tuple(settings.SENSITIVE_KEYWORDS)), saved=False)


@lru_cache(maxsize=8)
def _default(words: tuple[str, ...]) -> tuple[str, ...]:
    return keywords_clean(words)


def keywords_clean(words) -> tuple[str, ...]:
    """The keywords as matched: trimmed, lower-cased, inner spaces collapsed, blanks and
    repeats dropped, in their order."""
    cleaned = (" ".join(fold(str(word)).lower().split()) for word in words)
    return tuple(dict.fromkeys(word for word in cleaned if word))


def keywords_save(*, words: list[str]) -> KeywordList:
    """Save the workspace's own list (replacing the default); InvalidTopic says what is wrong
    with a keyword (too long, no letters or digits, too many)."""
    cleaned = keywords_clean(words)
    for word in cleaned:
        if len(word) > MAX_KEYWORD_CHARS:
            raise InvalidTopic(
                f"A keyword is at most {MAX_KEYWORD_CHARS} characters; {word[:40]!r}… has "
                f"{len(word)}. Write a shorter word or phrase."
            )
        if "#" in word:
            raise InvalidTopic(f"{word!r}: '#' starts a comment in the list's file; leave it out.")
        if not _WORD.search(word):
            raise InvalidTopic(f"{word!r} holds no letter or digit, so it can match no word.")
    if len(cleaned) > MAX_KEYWORDS:
        raise InvalidTopic(f"At most {MAX_KEYWORDS} keywords; this list has {len(cleaned)}.")
    path = memory_root() / KEYWORDS_FILE
    with transaction.atomic():
        note_lock(KEYWORDS_FILE)  # one writer at a time; the rename makes a read see all or none
        write_atomic(path, _HEADER + "".join(f"{word}\n" for word in cleaned), expected=None)
    _cache.clear()
    return KeywordList(words=cleaned, saved=True)


def keywords_reset() -> KeywordList:
    """Go back to the default list (settings.SENSITIVE_KEYWORDS): the saved list is removed."""
    with transaction.atomic():
        note_lock(KEYWORDS_FILE)
        (memory_root() / KEYWORDS_FILE).unlink(missing_ok=True)
    _cache.clear()
    return keywords_in_force()


# MEMORY_ROOT -> (checked at, modification time, the list read then)
_cache: dict[str, tuple[float, int | None, tuple[str, ...] | None]] = {}


def _saved_list() -> tuple[str, ...] | None:
    # Asked for every fact a read shows: a dictionary lookup and a clock read, mostly.
    root = str(settings.MEMORY_ROOT)
    now = time.monotonic()
    found = _cache.get(root)
    if found is not None and now - found[0] < _RECHECK_SECONDS:
        return found[2]
    path = memory_root() / KEYWORDS_FILE
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        mtime = None
    if found is not None and found[1] == mtime:
        _cache[root] = (now, mtime, found[2])
        return found[2]
    words = None
    if mtime is not None:
        lines = path.read_text(encoding="utf-8").splitlines()
        words = keywords_clean(line.split("#", 1)[0] for line in lines)
    _cache[root] = (now, mtime, words)
    return words


def _forms(word: str) -> frozenset[str]:
    # A word's inflections: plural, third person, past, -ing; spelling rules are applied
    # loosely (a form that is no English word matches nothing, so it costs nothing).
    forms = {word, f"{word}s", f"{word}es", f"{word}ed", f"{word}d", f"{word}ing"}
    if len(word) > 2:
        forms |= {f"{word}{word[-1]}ed", f"{word}{word[-1]}ing"}  # admitted, admitting
    if word.endswith("e"):
        forms.add(f"{word[:-1]}ing")  # sue -> suing
    if word.endswith("y") and len(word) > 2:
        forms |= {f"{word[:-1]}ies", f"{word[:-1]}ied"}  # surgery -> surgeries
    if word.endswith("is") and len(word) > 3:
        forms.add(f"{word[:-2]}es")  # diagnosis -> diagnoses
    return frozenset(forms)


@lru_cache(maxsize=4096)
def _keyword_forms(keyword: str) -> tuple[frozenset[str] | None, ...]:
    # None stands for `{number}`: any word that starts with a digit ("22", "14b").
    return tuple(
        None if word == NUMBER else _forms(word) for word in _KEYWORD_WORD.findall(keyword)
    )


def _holds(word: str, forms: frozenset[str] | None) -> bool:
    return word[:1].isdigit() if forms is None else word in forms


@lru_cache(maxsize=8)
def _matcher(keywords: tuple[str, ...]) -> dict[str, list[tuple[frozenset[str] | None, ...]]]:
    # Each keyword under every form of its first word ("" for a number), so a text is read
    # once, a dictionary lookup a word, however long the list.
    by_first: dict[str, list[tuple[frozenset[str] | None, ...]]] = {}
    for keyword in keywords:
        wanted = _keyword_forms(keyword)
        if not wanted:
            continue
        for form in wanted[0] if wanted[0] is not None else ("",):
            by_first.setdefault(form, []).append(wanted)
    return by_first


@lru_cache(maxsize=65_536)
def _sensitive(text: str, keywords: tuple[str, ...]) -> bool:
    by_first = _matcher(keywords)
    words = _WORD.findall(fold(text).lower())
    for i, word in enumerate(words):
        found = by_first.get(word, [])
        if word[:1].isdigit():
            found = found + by_first.get("", [])
        for wanted in found:
            rest = words[i : i + len(wanted)]
            if len(rest) == len(wanted) and all(map(_holds, rest, wanted)):
                return True
    return False
