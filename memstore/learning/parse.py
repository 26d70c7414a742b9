"""The strict reader of the model's extraction reply. Pure: no I/O, no Django.

A reply is plain lines. Exactly these count, one per line, keyword first:

    profile: <fact>     log: <fact>     note: <fact>     remove: <a known fact, quoted exactly>
    NONE

Everything else (prose, bullets, JSON, scope or bot names, "user:bob profile: …") is ignored and
counted; a keyword followed by only "NONE" (`profile: NONE`, `log: none.`) says nothing, like a
bare NONE, and is never a fact. The model never chooses where a fact goes: the learner routes it. A `remove:` counts only
when it quotes one of the known facts shown to the model (case and spacing aside); a fact over the
500-character limit is refused, never cut. The number of saves and removes per reply is capped,
so no reply can empty a memory.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from memstore.markdown import MAX_TEXT_CHARS, fact_identity

MAX_SAVES = 12
MAX_REMOVES = 3
MAX_SAMPLE = 3  # ignored lines kept as a sample for the console
_LINE_RE = re.compile(r"(profile|log|note|remove)\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)
_TAG_RE = re.compile(r"^\[(?:note|episode)\]\s*", re.IGNORECASE)
_NONE_RE = re.compile(r"[\"'`(\[]*(?:none|n/a|nothing)[\"'`)\].!]*", re.IGNORECASE)
_QUOTES = ('"', "'", "“”", "‘’", "`")

Kind = Literal["profile", "log", "note", "remove"]


@dataclass(frozen=True, slots=True)
class Proposal:
    """One accepted line: a fact to save in a tier, or a known fact (by identity) to remove."""

    kind: Kind
    text: str
    fact_id: str = ""  # for remove: the identity of the known fact it quotes


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


def reply_parse(reply: str, *, known: Mapping[str, str]) -> ParsedReply:
    """Read a model reply strictly. `known` maps the identity of each quotable text of the facts
    shown to the model (with and without its tag) to that fact's identity: the only facts a
    `remove:` may name."""
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
        text = _unquote(text) if removing else _TAG_RE.sub("", text, count=1)
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
            proposals.append(Proposal(kind, text))  # type: ignore[arg-type]
    return ParsedReply(
        proposals=proposals,
        refused=refused,
        ignored=len(ignored),
        ignored_sample=[line[:200] for line in ignored[:MAX_SAMPLE]],
        said_none=said_none,
    )


def _unquote(text: str) -> str:
    for pair in _QUOTES:
        opening, closing = pair[0], pair[-1]
        if len(text) >= 2 and text[0] == opening and text[-1] == closing:
            return text[1:-1].strip()
    return text
