"""How the content rules see through a secret written in disguise, the prose ways:

- a literal escape typed into the text ("sk_live_4eC3\\n9HqL…", "my password is\\nhunter2"):
  the backslash sequences `\\n`, `\\r`, `\\t` read as a space (a key then split in two is
  joined by `memstore.rules.normalise`);
- a word spelled out letter by letter ("p a s s w o r d", "p.a.s.s.w.o.r.d", "h-u-n-t-e-r-2"):
  four or more single characters, one separator between each, read as one word;
- leetspeak in the words that announce a secret ("p4ssw0rd", "s3cr3t", "t0k3n", "l0g1n",
  "cr3d3nt1als"): read as the plain word, so the prose rules that start from those words apply.

`unmasked` gives the text with all three undone, or None when none is there (most texts). It
only undoes the disguise: the detectors (`memstore.rules.secrets`) decide. Pure, no I/O; texts
arrive folded (`memstore.rules.normalise.fold`).
"""

import re

_ESCAPES = re.compile(r"\\[nrt]")
# Four or more single characters, the same separator between each: "p a s s", "p.a.s.s".
_SPELLED = re.compile(r"(?<!\S)\S(?P<sep>[ ._*·-])(?:\S(?P=sep)){2,}\S(?![^\s,;:!?)\"'])")

# The words a prose rule starts from, as leetspeak may write them (digits and symbols for
# letters). Only a match holding a digit or symbol is leetspeak: the plain word needs no help.
_KEYWORDS = (
    "password",
    "passwd",
    "passcode",
    "passphrase",
    "pass",
    "pwd",
    "pin",
    "secret",
    "token",
    "login",
    "credentials",
    "creds",
    "username",
    "user",
    "api key",
    "key",
    "apikey",
    "wifi",
)
_LEET = {
    "a": "a4@",
    "e": "e3",
    "i": "i1!|",
    "l": "l1|",
    "o": "o0",
    "s": "s5$",
    "t": "t7+",
    "g": "g9",
    "c": "c(",
    "b": "b8",
}


def _leet_pattern(word: str) -> str:
    parts = []
    for char in word:
        if char == " ":
            parts.append(r"[ _-]?")
        else:
            parts.append("[" + re.escape(_LEET.get(char, char)) + "]")
    return "".join(parts)


_LEET_WORDS = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    + "|".join(f"(?P<k{i}>{_leet_pattern(word)})" for i, word in enumerate(_KEYWORDS))
    + r")(?=s?(?![A-Za-z0-9]))",
    re.I,
)
# A digit or symbol inside a word, opening one or closing one, searched in the lower-cased text
# (most texts have none: a date, a "D1:3" does not pass). Each pattern starts with its class, so
# the search runs at the speed of a character scan.
_LEET_INSIDE = re.compile(r"[a-z][0-9@$!|(+]+[a-z]")
_LEET_OPENING = re.compile(r"[0-9@$!|(+](?<![^\s][0-9@$!|(+])[a-z]{2}")
# (A word's end: white space, the text's end, or the punctuation that follows a keyword:
# "passcod3: …", "p4ss=…".)
_LEET_CLOSING = re.compile(
    r"[0-9@$!|(+](?![^\s:;,.=])(?<=[a-z][0-9@$!|(+])"
    r"|[0-9@$!|(+]{2}(?![^\s:;,.=])(?<=[a-z][0-9@$!|(+]{2})"
)


def _leet_gate(text: str) -> bool:
    low = text.lower()
    return bool(_LEET_INSIDE.search(low) or _LEET_OPENING.search(low) or _LEET_CLOSING.search(low))


_PLAIN = re.compile(r"[A-Za-z ]+")


def unmasked(text: str) -> str | None:
    """The text with literal escapes, spelled-out words and leetspeak keywords undone, or None
    when it holds none of them."""
    out = text
    if "\\" in out:
        out = _ESCAPES.sub(" ", out)
    if " " in out or "." in out or "-" in out or "_" in out or "*" in out or "·" in out:
        out = _SPELLED.sub(_joined, out)
    if _leet_gate(out):
        out = _LEET_WORDS.sub(_plain_word, out)
    return None if out == text else out


def _joined(match: re.Match[str]) -> str:
    return match.group().replace(match.group("sep"), "")


def _plain_word(match: re.Match[str]) -> str:
    found = match.group()
    if _PLAIN.fullmatch(found):
        return found  # already plain: nothing disguised
    word = _KEYWORDS[int(match.lastgroup[1:])]  # type: ignore[index]
    return "PIN" if word == "pin" else word  # "p1n" is no pin on a board: it is written so
