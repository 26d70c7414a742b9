""" "Remember that…": a person's own request to remember something, found in their message.

`asked_to_remember` is pure: it reads only the person's message (never the bot's reply), drops
what they quote or forward (lines starting with `>`, a forwarded block, text in quotation
marks), and returns the facts asked for, in order, as the person would have a bot say them
about them ("I prefer dark mode" becomes "Prefers dark mode"). A request is an imperative at
the start of a sentence: "remember that…", "please remember:…", "keep in mind…", "don't forget
that…", "bear in mind…", "make a note that…", "for future reference…", "could you remember
that I…?" (a polite question counts only when it is about the speaker). Questions ("do you remember that…?", "remember that time we…?"), negations ("don't
remember that"), reports ("I remember that…") and reminders ("remember to call…") are not
requests.

Does not: save anything or judge the content (`memstore.learning.requested` saves through the
ordinary write path, where the content rules and the instruction check apply).
"""

import re
from dataclasses import dataclass

MAX_REQUESTS = 5  # one message asking for more is not a person talking to a bot

_QUOTE_PAIRS = (("\u201c", "\u201d"), ('"', '"'), ("\u00ab", "\u00bb"))
_FORWARDED = re.compile(
    r"^\s*(?:-{2,}\s*forwarded message\s*-{2,}|begin forwarded message\s*:|-{2,}\s*original "
    r"message\s*-{2,}|forwarded message\s*:)",
    re.IGNORECASE | re.MULTILINE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_LEAD = (
    r"(?:(?:hey|hi|ok|okay|oh|so|also|and|btw|by the way|fyi|one more thing|oh and)[,!:]?\s+)*"
    r"(?:(?:[a-z][\w-]{0,30}),\s+)?"  # a name: "Ava, remember that…"
    r"(?:(?:please|pls|plz|kindly)[,]?\s+)?"
)
_POLITE = r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)"
_VERB = (
    r"(?:remember|memori[sz]e|keep\s+in\s+mind|bear\s+in\s+mind|don'?t\s+forget|do\s+not\s+"
    r"forget|never\s+forget|make\s+a\s+note|take\s+note|note\s+down|save\s+this|for\s+future"
    r"\s+reference|for\s+the\s+record|commit\s+to\s+memory)"
)
_REQUEST = re.compile(
    rf"^{_LEAD}(?P<polite>{_POLITE})?(?P<verb>{_VERB})\b(?:\s+(?:this|it))?"
    r"(?P<join>\s*(?:,|:|-|\u2014|;)?\s*(?:that\b|this\b\s*:)?\s*)(?P<fact>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_TRAILER = re.compile(
    r"[\s,;:]*(?:(?:for\s+(?:me|later|next\s+time|the\s+future)|going\s+forward|from\s+now\s+on"
    r"|please|thanks?(?:\s+you)?|ok(?:ay)?|yeah)[\s,.!]*)+$",
    re.IGNORECASE,
)
# What follows the verb when this is not asking to remember a fact.
_NOT_A_FACT = re.compile(
    r"^(?:to\b|when\b|how\b|what\b|where\b|who\b|why\b|whether\b|if\b|that\s+(?:time|day|night"
    r"|week|one|place|guy|song|movie|thing)\b|me\b|him\b|her\b|us\b|them\b|the\s+time\b)",
    re.IGNORECASE,
)
# Words that must open the fact after a verb with no "that" or colon ("remember I'm vegan").
_SUBJECT = re.compile(
    r"^(?:i\b|i'm\b|i've\b|i'd\b|i'll\b|my\b|we\b|we're\b|our\b|the\b|[A-Z0-9])", re.IGNORECASE
)

# "I prefer" -> "Prefers": the person's first-person lead made third-person, as facts read.
_IRREGULAR = {
    "am": "is", "'m": "is", "have": "has", "'ve": "has", "do": "does", "go": "goes",
    "don't": "doesn't", "haven't": "hasn't", "was": "was", "wasn't": "wasn't",
}  # fmt: skip
_MODAL = {
    "can", "could", "will", "would", "should", "must", "may", "might", "shall", "'d", "'ll",
    "can't", "won't", "wouldn't", "shouldn't", "couldn't",
}  # fmt: skip
_PAST = {
    "was", "went", "had", "did", "got", "made", "left", "took", "came", "bought", "saw", "said",
    "told", "met", "grew", "began", "became", "ran", "won", "lost", "sold", "quit", "broke",
    "wrote", "spent", "found", "gave", "knew", "felt", "kept", "paid", "put", "set", "read",
}  # fmt: skip
_LEAD_I = re.compile(
    r"^i(?:\s+(?P<word>[a-z]+(?:'[a-z]+)?)|(?P<short>'m|'ve|'d|'ll))(?![\w'])\s*", re.IGNORECASE
)
_MINE = ((re.compile(r"\bmy\b"), "their"), (re.compile(r"\bmyself\b"), "themselves"))
_ADVERB = {"really", "always", "usually", "never", "often", "also", "still", "mostly", "only"}


@dataclass(frozen=True, slots=True)
class Asked:
    """One fact asked for: its text, and whether it is about the speaker ("I…", "my…"), so it
    needs their name wherever it is not already about them."""

    text: str
    about_speaker: bool


_SELF = re.compile(r"^(?:i\b|i'm\b|i've\b|i'd\b|i'll\b)|\b(?:my|me|mine|myself)\b", re.IGNORECASE)


def asked_requests(message: str) -> list[Asked]:
    """The facts a person's message asks to be remembered, in order (at most MAX_REQUESTS)."""
    found: list[Asked] = []
    for sentence in _sentences(_own_words(message)):
        fact = _requested(sentence)
        if fact and fact[0] not in (a.text for a in found):
            found.append(Asked(text=fact[0], about_speaker=fact[1]))
    return found[:MAX_REQUESTS]


def asked_to_remember(message: str) -> list[str]:
    """The texts of `asked_requests`."""
    return [asked.text for asked in asked_requests(message)]


def _own_words(message: str) -> str:
    """The message without what the person quotes or forwards."""
    if forwarded := _FORWARDED.search(message):
        message = message[: forwarded.start()]
    lines = [line for line in message.splitlines() if not line.lstrip().startswith(">")]
    text = "\n".join(lines)
    for opening, closing in _QUOTE_PAIRS:
        text = re.sub(
            rf"{re.escape(opening)}[^{re.escape(closing)}\n]*{re.escape(closing)}", " … ", text
        )
    return text


def _sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE.split(text) if part and part.strip()]


def _requested(sentence: str) -> tuple[str, bool] | None:
    match = _REQUEST.match(sentence)
    if match is None:
        return None
    fact = match["fact"].strip()
    join = match["join"]
    if sentence.rstrip().endswith("?") and not (match["polite"] and _SELF.search(fact)):
        # "Remember that I'm vegan?", "Can you remember that the meeting moved?": questions.
        # Only a polite request about the speaker ("Could you remember that I…?") is one.
        return None
    if _NOT_A_FACT.match(fact):
        return None
    if not re.search(r"that\b|[:,\-\u2014;]", join, re.IGNORECASE) and not _SUBJECT.match(fact):
        return None  # "remember everything" / "keep in mind the budget" without a clause
    fact = _TRAILER.sub("", fact.rstrip(" .!?")).strip(" .!?,;:\u2026")
    if "\u2026" in fact or len(fact.split()) < 2:
        return None  # a quotation was cut out of it, or there is nothing to keep
    return _third_person(fact), bool(_SELF.search(fact))


def _third_person(fact: str) -> str:
    head, tail = fact[:2], fact[2:]
    for pattern, theirs in _MINE:
        tail = pattern.sub(theirs, tail)
    fact = head + tail
    match = _LEAD_I.match(fact)
    if match is None:
        if re.match(r"^my\b", fact, re.IGNORECASE):
            fact = "Their" + fact[2:]
        return fact[0].upper() + fact[1:]
    word = (match["word"] or match["short"]).lower()
    rest = fact[match.end() :]
    if word in _ADVERB:  # "I really like…": keep the adverb, conjugate the verb after it
        inner = _third_person("I " + rest)
        return word.capitalize() + " " + inner[0].lower() + inner[1:]
    verb = _conjugated(word)
    return (verb.capitalize() + (" " + rest if rest else "")).strip()


def _conjugated(word: str) -> str:
    if word.endswith("ed") or word in _PAST:
        return word  # "I moved to Porto" -> "Moved to Porto": the past needs no -s
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word in _MODAL:
        return {"'d": "would", "'ll": "will"}.get(word, word)
    if re.search(r"(?:s|sh|ch|x|z|o)$", word):
        return word + "es"
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    return word + "s"
