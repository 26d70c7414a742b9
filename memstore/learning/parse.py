"""The strict readers of the model's replies: extraction (`reply_parse`) and episode
(`episode_parse`). Pure: no I/O, no Django.

A reply is plain lines. Exactly these count, one per line, keyword first:

    profile: <fact>     log: <fact>     note: <fact>     remove: <a known fact, quoted exactly>
    NONE

A save line may end with attributes in braces, which the learner keeps as the fact's metadata:

    profile: Prefers short answers {type=preference importance=0.8}
    log: Is planning a surprise party for Sam {private}

`type=` one of memstore.vocabulary.FACT_TYPES, `importance=` a number from 0 to 1, `private`
(the bot keeps it to itself: used in direct rooms only), `until=YYYY-MM-DD` (a plainly
temporary fact's last day: from the exchange's day to a year after it). Unknown or malformed
attributes are dropped; the fact is kept.

Everything else (prose, bullets, JSON, scope or bot names, "user:bob profile: …") is ignored and
counted; a keyword followed by only "NONE" (`profile: NONE`, `log: none.`) says nothing, like a
bare NONE, and is never a fact. The model never chooses where a fact goes: the learner routes it. A `remove:` counts only
when it quotes one of the known facts shown to the model (case and spacing aside); a fact over the
500-character limit is refused, never cut. The number of saves and removes per reply is capped,
so no reply can empty a memory.

An episode reply is one or two sentences of plain prose, or NONE, and nothing else: it may
start with `[episode]`; any line in the shape of another reply (a `profile:`/`log:`/`note:`/
`remove:` line, a `word:` label, a `[tag]`, `{…}` attributes, a bullet, a heading, markup,
a metadata comment) makes the whole reply malformed, refused, never saved as it came.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Literal

from memstore.facts.markdown import MAX_TEXT_CHARS, fact_identity
from memstore.vocabulary import FACT_TYPES

MAX_SAVES = 12
MAX_REMOVES = 3
MAX_SAMPLE = 3  # ignored lines kept as a sample for the console
UNTIL_AHEAD_DAYS = 366  # a learned until= is at most this far past the exchange
_LINE_RE = re.compile(r"(profile|log|note|remove)\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)
_TAG_RE = re.compile(r"^\[(?:note|episode)\]\s*", re.IGNORECASE)
_ATTRS_RE = re.compile(r"\s*\{([^{}]*)\}\s*$")
_NONE_RE = re.compile(r"[\"'`(\[]*(?:none|n/a|nothing)[\"'`)\].!]*", re.IGNORECASE)
_QUOTES = ('"', "'", "“”", "‘’", "`")

Kind = Literal["profile", "log", "note", "remove"]


@dataclass(frozen=True, slots=True)
class Proposal:
    """One accepted line: a fact to save in a tier, or a known fact (by identity) to remove."""

    kind: Kind
    text: str
    fact_id: str = ""  # for remove: the identity of the known fact it quotes
    meta: dict[str, str] = field(default_factory=dict)  # type, importance, visibility=private


@dataclass(frozen=True, slots=True)
class Refusal:
    """A well-formed line that was still not accepted, and why."""

    kind: str
    text: str
    reason: Literal["too_long", "empty", "not_known", "limit"]


@dataclass(frozen=True, slots=True)
class ParsedReply:
    """What a reply asked for, what was refused and how many lines were ignored."""

    proposals: list[Proposal] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    ignored: int = 0
    ignored_sample: list[str] = field(default_factory=list)
    said_none: bool = False


def reply_parse(reply: str, *, known: Mapping[str, str], today: date | None = None) -> ParsedReply:
    """Read a model reply strictly. `known` maps the identity of each quotable text of the facts
    shown to the model (with and without its tag) to that fact's identity: the only facts a
    `remove:` may name. `today`: the exchange's day, which an `until=` may not be before."""
    proposals: list[Proposal] = []
    refused: list[Refusal] = []
    ignored: list[str] = []
    said_none = False
    seen: set[tuple[bool, str]] = set()
    saves = removes = 0
    for raw in reply.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line == "NONE":
            said_none = True
            continue
        match = _LINE_RE.fullmatch(line)
        if not match:
            ignored.append(line)
            continue
        kind = match.group(1).lower()
        text = match.group(2).strip()
        removing = kind == "remove"
        meta: dict[str, str] = {}
        if not removing:
            text, meta = fact_attributes(_TAG_RE.sub("", text, count=1), today=today)
        else:
            text = _unquote(text)
        if not text:
            refused.append(Refusal(kind, text, "empty"))
            continue
        if _NONE_RE.fullmatch(text):  # "profile: NONE" says nothing, like a bare NONE
            said_none = True
            continue
        if len(text) > MAX_TEXT_CHARS:
            refused.append(Refusal(kind, text, "too_long"))
            continue
        identity = fact_identity(text)
        if (removing, identity) in seen:
            continue
        seen.add((removing, identity))
        if removing and identity not in known:
            refused.append(Refusal(kind, text, "not_known"))
        elif (removing and removes >= MAX_REMOVES) or (not removing and saves >= MAX_SAVES):
            refused.append(Refusal(kind, text, "limit"))
        elif removing:
            removes += 1
            proposals.append(Proposal("remove", text, fact_id=known[identity]))
        else:
            saves += 1
            proposals.append(Proposal(kind, text, meta=meta))  # type: ignore[arg-type]
    return ParsedReply(
        proposals=proposals,
        refused=refused,
        ignored=len(ignored),
        ignored_sample=[line[:200] for line in ignored[:MAX_SAMPLE]],
        said_none=said_none,
    )


def fact_attributes(text: str, *, today: date | None = None) -> tuple[str, dict[str, str]]:
    """The text without its trailing `{…}` attributes, and the valid ones as metadata (an
    `until=` only when it is a real day from `today` to a year after it)."""
    match = _ATTRS_RE.search(text)
    if not match:
        return text, {}
    meta: dict[str, str] = {}
    for token in match.group(1).replace(",", " ").split():
        key, _, value = token.partition("=")
        key, value = key.lower(), value.strip().lower()
        if key == "type" and value in FACT_TYPES:
            meta["type"] = value
        elif key == "importance" and _fraction(value) is not None:
            meta["importance"] = f"{_fraction(value):g}"
        elif key == "private" and not value:
            meta["visibility"] = "private"
        elif key == "until" and (day := _until(value, today)) is not None:
            meta["until"] = day.isoformat()
    return text[: match.start()].strip(), meta


def _until(value: str, today: date | None) -> date | None:
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        return None
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return None
    if today is not None and not today <= day <= today + timedelta(days=UNTIL_AHEAD_DAYS):
        return None
    return day


def _fraction(value: str) -> float | None:
    try:
        number = round(float(value), 2)
    except ValueError:
        return None
    return number if 0.0 <= number <= 1.0 else None


def _unquote(text: str) -> str:
    for pair in _QUOTES:
        opening, closing = pair[0], pair[-1]
        if len(text) >= 2 and text[0] == opening and text[-1] == closing:
            return text[1:-1].strip()
    return text


_EPISODE_TAG = re.compile(r"^\[episode\]\s*", re.IGNORECASE)
# What prose never starts with or holds: another reply's keyword or label, a tag, a bullet, a
# heading, markup, attributes, a metadata comment.
_NOT_PROSE = re.compile(
    r"^(?:[\w-]+\s*:|\[|[-*+•>#|`<]|\d+[.)]\s)|[{}]|<!--|-->|\]\s*\(|```", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class EpisodeReply:
    """An episode reply as read: its text ('' for NONE or nothing), or why it was refused
    (`refused`, with the first offending line, cut to 200 characters, in `sample`)."""

    text: str = ""
    refused: str = ""
    sample: str = ""


def episode_parse(reply: str) -> EpisodeReply:
    """Read an episode reply strictly: plain prose on its own lines (joined into one), NONE,
    or refused as malformed."""
    lines = [line.strip() for line in reply.splitlines() if line.strip()]
    if not lines or (len(lines) == 1 and _NONE_RE.fullmatch(lines[0])):
        return EpisodeReply()
    lines[0] = _EPISODE_TAG.sub("", lines[0], count=1)
    for line in lines:
        if not line or _NOT_PROSE.search(line) or _NONE_RE.fullmatch(line):
            return EpisodeReply(
                refused="Not an episode: the reply holds lines in another shape than sentences.",
                sample=line[:200],
            )
    return EpisodeReply(text=" ".join(lines))
