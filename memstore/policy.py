"""Content rules applied before anything is written: secrets stay out of shared memory, and a
person's excluded topics stay out of memory altogether. Pure functions, no I/O."""

import re

_SECRET_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("a private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("an API key", re.compile(r"\b(?:sk|pk|rk)-(?:[A-Za-z0-9_-]{2,16}-)?[A-Za-z0-9]{16,}")),
    ("an AWS access key", re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b")),
    ("a GitHub token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}")),
    ("a Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    (
        "a JSON web token",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+"),
    ),
    ("a bearer token", re.compile(r"\bbearer\s+[A-Za-z0-9._~+/-]{20,}", re.I)),
    (
        "a password",
        re.compile(
            r"\b(?:password|passwd|passcode|pwd|pin code)\b\s*(?:is|was|:|=)\s*\S{3,}", re.I
        ),
    ),
    (
        "a secret or token",
        re.compile(
            r"\b(?:api[_ -]?key|secret|token|access[_ -]?key)\b\s*(?:is|:|=)\s*\S{8,}", re.I
        ),
    ),
]
_CARD_RE = re.compile(r"\b(?:\d[ -]?){13,19}\b")


def secret_kind(text: str) -> str | None:
    """What kind of secret the text seems to contain ('a password', …), or None."""
    for kind, pattern in _SECRET_PATTERNS:
        if pattern.search(text):
            return kind
    for match in _CARD_RE.finditer(text):
        digits = re.sub(r"\D", "", match.group())
        if 13 <= len(digits) <= 19 and _luhn_ok(digits):
            return "a payment card number"
    return None


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, char in enumerate(reversed(digits)):
        n = int(char)
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def excluded_topic(text: str, topics: list[str]) -> str | None:
    """The first excluded topic the text mentions (whole words, any case), or None."""
    lowered = text.lower()
    for topic in topics:
        words = topic.strip().lower()
        if words and re.search(rf"(?<!\w){re.escape(words)}(?!\w)", lowered):
            return topic
    return None
