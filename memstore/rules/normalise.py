"""How the content rules read a text: the one place that undoes the ways a secret is disguised.

`fold` gives the text as the rules read it: NFKC (full-width and mathematical letters become
plain ones), zero-width, bidi and other invisible characters (tag characters included) removed,
and Cyrillic, Greek and Armenian letters that look like Latin ones folded to those ("раѕѕword"
with a Cyrillic р, а and ѕ reads "password").

`hidden_forms` gives what else the folded text may be saying: a base64 or hex run that decodes
to printable text, a percent-encoded text decoded, a key split by spaces or dashes
("sk_live_ 4eC3 9HqL …", "A K I A …", "AKIA-ABCD-…") joined again, a key split in two across
one space or line break ("sk_live_4eC39H qLyJeW…") joined, and a long run written backwards
read forwards. The detectors decide whether
any of those is a key; this module only undoes the disguise, and never says what it found.
Pure functions, no I/O.
"""

import base64
import binascii
import re
import unicodedata
from urllib.parse import unquote

# Zero-width, bidi controls, variation selectors, fillers and tag characters: invisible in a
# browser, so someone may slip them into a word or a key to dodge a rule.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)

# Letters of other scripts drawn like Latin ones (Unicode's confusables, the common ones).
_LOOK_ALIKES = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ѕ": "s", "і": "i", "ј": "j", "к": "k", "м": "m", "н": "h",
    "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ԁ": "d", "һ": "h", "ԛ": "q",
    "ԝ": "w", "ӏ": "l", "ү": "y", "ё": "e", "ї": "i",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ү": "Y", "Ԛ": "Q", "Ԝ": "W", "Һ": "H",
    "Ӏ": "I", "З": "3",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "α": "a", "ε": "e", "ι": "i", "κ": "k",
    "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w",
    # Armenian and Latin extensions
    "օ": "o", "ս": "u", "ı": "i", "ȷ": "j", "ɑ": "a", "ɡ": "g", "ℓ": "l",
}  # fmt: skip
_FOLD = str.maketrans(_LOOK_ALIKES)


def fold(text: str) -> str:
    """The text as the rules read it: NFKC, invisible characters removed, look-alikes Latin."""
    if text.isascii():
        return text
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).translate(_FOLD)


# A run that may be base64 (standard or URL-safe) or hex: long enough to hide a key.
_ENCODED = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")
# Short chunks joined by one space each, or by one dash each: how a key is split to dodge a
# pattern ("sk_live_ 4eC3 9HqL …", "A K I A …", "AKIA-ABCD-…").
_SPACED = re.compile(r"(?:[A-Za-z0-9_+/=.$-]{1,16} ){2,}[A-Za-z0-9_+/=.$-]{1,16}")
_DASHED = re.compile(
    r"(?<![\w-])[A-Za-z0-9_+/=.$]{1,16}-(?:[A-Za-z0-9_+/=.$]{0,16}-){2,}[A-Za-z0-9_+/=.$]{1,16}"
)
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_KEYLIKE = re.compile(r"[0-9_+/=$.]|.[A-Z]")
_PROSE_WORD = re.compile(r"(?<![^ -])(?:[A-Z][a-z]+|[a-z]{2,})(?![^ -])")


def hidden_forms(text: str) -> list[str]:
    """Other readings of an already folded text: decoded runs, re-joined keys (maybe none)."""
    forms = [decoded for run in _ENCODED.findall(text) if (decoded := _decoded(run))]
    if "%" in text and _PERCENT.search(text):
        forms.append(fold(unquote(text)))  # "sk%5Flive%5F…"
    if " " in text:
        forms += [joined for run in _SPACED.findall(text) for joined in _rejoined(run)]
    if "-" in text:
        forms += [joined for run in _DASHED.findall(text) if (joined := _undashed(run))]
    if "\\" in text:
        forms.append(_ESCAPE.sub("", text))  # "sk_live_4eC3\\n9HqL…" read as one key
    forms += [run[::-1] for run in _LONG.findall(text)]  # a key written backwards
    forms += _halves_joined(text)
    return forms


# A run long enough to be a key (as `memstore.rules.secret_keys.LONG_RUN`); two runs side by
# side that may be one key cut in two; a literal escape typed into a key ("sk_live_4eC3\\n9H…").
_LONG = re.compile(r"(?<![\w.+/=$~-])[\w.+/=$~-]{16,}")  # from a run's start only: linear
_RUN = re.compile(r"[\w.+/=$~-]+")
_ESCAPE = re.compile(r"\\[nrt]")
_MAX_HALVES = 16
_ASSIGNED = re.compile(r"=[^=]")
_KEY_HALF = re.compile(r"[0-9_+/=$]|.[A-Z]|\.\w")  # a sentence's full stop is not a key's


def _half(token: str) -> bool:
    return len(token) == 1 or _KEY_HALF.search(token) is not None


def _halves_joined(text: str) -> list[str]:
    """Two neighbouring runs joined, where together they are long enough for a key and one of
    them has a key's look (a digit, symbol or inner capital, or a single character)."""
    found = []
    words = text.split()
    for first, second in zip(words, words[1:], strict=False):
        if len(first) + len(second) < 16 or not (_half(first) or _half(second)):
            continue
        if not (_RUN.fullmatch(first) and _RUN.fullmatch(second)):
            continue
        if _ASSIGNED.search(first) or _ASSIGNED.search(second):
            continue  # `by=ava importance=0.6`: metadata, not a key (whose "=" only pads it)
        found.append(first + second)
        if len(found) == _MAX_HALVES:
            break
    return found


def _decoded(run: str) -> str | None:
    # Printable text only: random bytes (a digest, a key's own base64) almost never are.
    raw = run.rstrip("=")
    data = None
    if len(raw) % 2 == 0 and _HEX.fullmatch(raw):
        data = binascii.unhexlify(raw)
    else:
        padded = raw.replace("-", "+").replace("_", "/") + "=" * (-len(raw) % 4)
        try:
            data = base64.b64decode(padded, validate=True)
        except (binascii.Error, ValueError):
            return None
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(decoded) < 8 or not decoded.replace("\n", " ").replace("\t", " ").isprintable():
        return None
    return fold(decoded)


def _rejoined(run: str) -> list[str]:
    """A space-split run joined again, from each place a key may start (after a word, or one
    of the first three chunks). Empty when the chunks read like words, not a key's pieces."""
    parts = run.split(" ")
    if len(_PROSE_WORD.findall(run)) * 2 > len(parts):
        return []  # mostly words: a sentence, not a split key (checked cheaply first)
    if sum(map(_keyish, parts)) < max(3, len(parts) // 2):
        return []
    starts = [i for i in range(len(parts)) if i < 3 or not _keyish(parts[i - 1])]
    return [joined for i in starts[:6] if len(joined := "".join(parts[i:])) >= 16]


def _undashed(run: str) -> str | None:
    """A key cut into equal chunks by dashes, with those dashes removed (a dash the key has
    itself, off the period, stays: "pul-3-a4f5e-…" reads "pul-3a4f5e…"). None if the dashes
    fall at no regular period."""
    sizes = [len(chunk) for chunk in run.split("-")]
    size = max(set(sizes[1:-1]), key=sizes.count)
    if sizes.count(size) < 3 or size < 3:
        return None
    step = size + 1
    out = [c for i, c in enumerate(run) if not (c == "-" and (i + 1) % step == 0)]
    return "".join(out)


def _keyish(token: str) -> bool:
    # A chunk of a key: one character, or with a digit, symbol or capital inside.
    return len(token) == 1 or _KEYLIKE.search(token) is not None
