"""Content rules applied before anything is written: secrets are never stored (in any scope),
and a person's excluded topics stay out of memory altogether. Pure functions, no I/O.

Every text is folded first (`memstore.rules.normalise`: NFKC, invisible characters removed,
look-alike Cyrillic and Greek letters made Latin), so "pass\u200bword", a full-width
"ｐａｓｓｗｏｒｄ" or a Cyrillic "раssword" is read as "password"; a key hidden in base64 or
hex, percent-encoded, or split by spaces or dashes is looked for in its decoded or joined form
too. `secret_kind` is the one entry other modules call (on every save, and on lines read from
disk): the rules themselves live in `memstore.rules.secrets`. A refusal names the kind of secret
("a password", "a Stripe Access Key"), never the secret. Excluded topics match whole words in
any case and any word form: both sides are stemmed (Snowball English), so "divorce" also
matches "divorced" and "divorcing". This module does not decide which writes are checked: the
write path that calls it does.
"""

import math
import re
from collections import Counter
from collections.abc import Mapping
from functools import lru_cache

import snowballstemmer

from memstore.rules.normalise import fold, hidden_forms
from memstore.rules.secrets import KEY_RULES, RULES, Rule
from memstore.rules.unmask import unmasked

_WORD = re.compile(r"\w+")
_STEMMER = snowballstemmer.stemmer("english")

normalise = fold  # the text as every rule here reads it


Groups = tuple[tuple[re.Pattern[str] | None, tuple[Rule, ...]], ...]


def groups_of(rules: tuple[Rule, ...]) -> Groups:
    """The rules in their order, runs of the same gate together: one gate test skips a run."""
    groups: list[tuple[re.Pattern[str] | None, list[Rule]]] = []
    for rule in rules:
        if groups and groups[-1][0] is rule.gate:
            groups[-1][1].append(rule)
        else:
            groups.append((rule.gate, [rule]))
    return tuple((gate, tuple(run)) for gate, run in groups)


_ALL, _KEYS = groups_of(RULES), groups_of(KEY_RULES)


def secret_kind(text: str) -> str | None:
    """What kind of secret the text seems to contain ('a password', …), or None. Also reads
    the text unmasked (literal escapes, spelled-out words, leetspeak undone) with every rule,
    and looks in its hidden forms (decoded base64/hex, a split key joined, a key written
    backwards) for a key shape."""
    text = fold(text)
    if kind := _scan(text, _ALL):
        return kind
    plain = unmasked(text)
    if plain is not None and (kind := _scan(plain, _ALL)):
        return kind
    forms = hidden_forms(text) + (hidden_forms(plain) if plain is not None else [])
    for form in dict.fromkeys(forms):
        if kind := _scan(form, _KEYS):
            return kind
    return None


def _scan(text: str, groups: Groups) -> str | None:
    # The first rule (in order) that matches names the kind. Runs on every save and every
    # line read, so the loop is kept lean: most texts pass no gate but the prose one.
    passed: dict[re.Pattern[str], bool] = {}
    low = text.lower()
    for gate, rules in groups:
        if gate is not None:
            if (open_ := passed.get(gate)) is None:
                open_ = passed[gate] = gate.search(low) is not None
            if not open_:
                continue
        for rule in rules:
            if rule.check is None:
                if rule.pattern.search(text):
                    return rule.kind
                continue
            for match in rule.pattern.finditer(text):
                if rule.check(match):
                    return rule.kind
    return None


def secret_in_meta(meta: Mapping[str, object] | None) -> str | None:
    """What kind of secret a metadata value (or `key=value` pair) holds, or None. A value is
    a name, a source or a tag, never prose: a long random token in one (mixed case and digits,
    as a key is made) is taken for a key even without the words that would name it in a text."""
    for key, value in (meta or {}).items():
        text = str(value)
        # A tag list is read tag by tag too ("work,sk_live_…" hides nothing behind its comma).
        parts = text.split(",") if "," in text else ()
        if kind := secret_kind(text) or secret_kind(f"{key}={text}"):
            return kind
        if kind := next(filter(None, map(secret_kind, parts)), None):
            return kind
        if _random_token(fold(text)):
            return "a key or token"
    return None


# A token in a metadata value: a run of key characters (a URL's path is not one: a link's own
# secrets have their rules).
_TOKEN = re.compile(r"(?<![\w+/=-])[A-Za-z0-9+/=_-]{20,}")
_URL_PATH = re.compile(r"://[^\s?#]*")


def _random_token(value: str) -> bool:
    """Whether a metadata value holds a key-like token: 20 or more characters mixing lower
    case, capitals and digits, random enough (over 3.7 bits a character) not to be a name."""
    if len(value) < 20 or value.startswith("data:"):  # an inline file (data: URI), not a key
        return False
    if "://" in value:
        value = _URL_PATH.sub(" ", value)
    for token in _TOKEN.findall(value):
        core = token.strip("=_-")
        if len(core) < 20 or not (
            re.search("[a-z]", core) and re.search("[A-Z]", core) and re.search("[0-9]", core)
        ):
            continue
        counts = Counter(core)
        size = len(core)
        if -sum(n / size * math.log2(n / size) for n in counts.values()) > 3.7:
            return True
    return False


def excluded_topic(text: str, topics: list[str]) -> str | None:
    """The first excluded topic the text mentions (whole words, any case, any word form), or
    None. A topic of several words matches those words in that order, side by side."""
    stems = _stems(text)
    for topic in topics:
        wanted = _topic_stems(topic)
        size = len(wanted)
        if size and any(stems[i : i + size] == wanted for i in range(len(stems) - size + 1)):
            return topic
    return None


def _stems(text: str) -> list[str]:
    # Word stems of the normalised text: "Divorced" and "divorcing" both read "divorc".
    return _STEMMER.stemWords(_WORD.findall(normalise(text).lower()))


@lru_cache(maxsize=4096)
def _topic_stems(topic: str) -> list[str]:
    # The same few topics and keywords are stemmed for every save: remembered (not mutated).
    return _stems(topic)
