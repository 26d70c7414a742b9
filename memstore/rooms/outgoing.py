"""The one gate for text going out to any model: the learner, episodes, synthesis,
contradictions, summarize, a remote reranker and a remote embeddings endpoint.

Every caller passes the facts (and the room's own words) it wants to send through `outgoing`
(and `outgoing_said`), given the room in play, and gets a `Cleared`: the only thing the model
client (`memstore.llm.client`), the remote reranker and the remote embedder accept. Only this
module makes one, so a model call that skipped the gate fails before a byte leaves
(tests/memstore/rooms/test_outgoing_gate.py also scans the code for one).

A fact goes out only when the room in play may read it:

    hidden        never, to any model;
    not readable  its scope is not one the room reads (`memstore.rooms.access`): another
                  person's memory, another bot's, a private conversation elsewhere, a private
                  bot's memory in a group room it did not open, a project not in play;
    private       visibility=private outside a direct room;
    withheld      what every read withholds (`memstore.rules.withheld`): on an excluded topic of
                  a person it names (or of the direct room's person), a paused person's memory
                  and private facts, a line that looks like a secret.

With no room (an upkeep job over a scope no one room reads), only what every reader may see
goes: no user memory, no private-conversation or legacy room memory, no private fact, no memory
of a bot that keeps a private memory, nothing withheld from a read without a person.
`upkeep_audience` names the room an upkeep job over a person's memory reads as (their direct
room), so their pause and topics apply. `personal=False` (a remote reranker or embedder, which
never sees private memories): besides, no user memory, no private fact, no private-conversation
memory and no memory of a bot that keeps a private memory, whatever the room.

The room's own words (an exchange, a text handed in to summarize) go through `outgoing_said`:
each sentence that touches an excluded topic of a person it names, of the direct room's person,
or one of `topics` (the learner's people in the room) is replaced by a marker.

Does not: decide what a room reads (`memstore.rooms.access`) or what a read withholds
(`memstore.rules.withheld`); it applies both, and nothing else.
"""

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from django.db.models import F

from memstore.facts.records import StoredFact, stored_from_row
from memstore.models import Bot, Fact
from memstore.rooms.access import Context, Room, readable_scopes, visible, withholding_of
from memstore.rules.policy import excluded_topic
from memstore.rules.withheld import Withholding, withholding_for

Dropped = Literal["hidden", "not readable", "private", "topic", "paused", "secret"]
TOPIC_MARK = "[withheld: touches a topic someone asked not to be remembered]"
UPKEEP_ROOM = "upkeep"
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_GATE = object()  # only this module's functions make a Cleared


class UngatedText(TypeError):
    """Text was about to go to a model without passing the outgoing gate."""


@dataclass(frozen=True, slots=True)
class Cleared:
    """What passed the gate: the facts, the room's own words (`said`), and how many were
    dropped and why. Made only by `outgoing` and `outgoing_said`; joined with `+`."""

    facts: tuple[StoredFact, ...] = ()
    said: tuple[str, ...] = ()
    dropped: dict[str, int] = field(default_factory=dict)
    stamp: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.stamp is not _GATE:
            raise UngatedText("Only memstore.rooms.outgoing makes a Cleared: pass it the text.")

    @property
    def texts(self) -> list[str]:
        """The cleared facts' texts, in order."""
        return [fact.text for fact in self.facts]

    def quoting(self, texts: Iterable[str]) -> "Cleared":
        """Itself, when every one of `texts` (what a prompt quotes) is a cleared fact's text
        or cleared words of the room; else UngatedText naming the first that is not."""
        allowed = {*self.texts, *(f.body for f in self.facts), *self.said}
        for text in texts:
            if text not in allowed:
                raise UngatedText(f"A prompt quotes text the gate did not clear: {text[:60]!r}")
        return self

    def __add__(self, other: "Cleared") -> "Cleared":
        dropped = dict(self.dropped)
        for reason, count in other.dropped.items():
            dropped[reason] = dropped.get(reason, 0) + count
        return Cleared(
            facts=self.facts + other.facts,
            said=self.said + other.said,
            dropped=dropped,
            stamp=_GATE,
        )


def cleared_check(value: object) -> "Cleared":
    """The value, if the gate made it; else UngatedText (what the model clients call first)."""
    if not isinstance(value, Cleared) or value.stamp is not _GATE:
        raise UngatedText(
            "Text for a model must pass memstore.rooms.outgoing first "
            f"(got {type(value).__name__})."
        )
    return value


def outgoing(
    facts: Iterable[StoredFact],
    *,
    ctx: Context | None,
    personal: bool = True,
    topics: Sequence[str] = (),
    rule: Withholding | None = None,
) -> Cleared:
    """The facts that may go to a model from the room in play (`ctx`; None: no room), in
    order. `topics`: excluded topics of people in the room besides (any fact touching one is
    dropped); `rule`: the room's withholding, when the caller read it already."""
    facts = list(facts)
    kept: list[StoredFact] = []
    dropped: dict[str, int] = {}
    reasons = outgoing_reasons(facts, ctx=ctx, personal=personal, topics=topics, rule=rule)
    for fact, reason in zip(facts, reasons, strict=True):
        if reason is None:
            kept.append(fact)
        else:
            dropped[reason] = dropped.get(reason, 0) + 1
    return Cleared(facts=tuple(kept), dropped=dropped, stamp=_GATE)


def outgoing_reasons(
    facts: Sequence[StoredFact],
    *,
    ctx: Context | None,
    personal: bool = True,
    topics: Sequence[str] = (),
    rule: Withholding | None = None,
) -> list[Dropped | None]:
    """Why each fact may not go to a model from this room, or None where it may: the gate's
    rule fact by fact (what "what can reach my prompts" shows)."""
    if not facts:
        return []
    if rule is None:
        rule = withholding_of(ctx) if ctx is not None else withholding_for(person=None)
    decide = _Decider(ctx, personal, rule, _private_bots(facts))
    reasons: list[Dropped | None] = []
    for fact in facts:
        reason = decide.reason(fact)
        if reason is None and topics and excluded_topic(fact.text, list(topics)):
            reason = "topic"
        reasons.append(reason)
    return reasons


def outgoing_said(
    texts: Iterable[str],
    *,
    ctx: Context | None,
    topics: Sequence[str] = (),
    rule: Withholding | None = None,
) -> Cleared:
    """The room's own words as they may go to a model: every sentence touching an excluded
    topic of a person it names, of the direct room's person, or one of `topics`, replaced by a
    marker (the texts keep their number and order)."""
    texts = list(texts)
    if rule is None:
        rule = withholding_of(ctx) if ctx is not None else withholding_for(person=None)
    said, count = [], 0
    about = ctx.person if ctx is not None and ctx.room.kind == "direct" else None
    for text in texts:
        kept = _said(text, rule, topics, about)
        count += kept != text
        said.append(kept)
    return Cleared(said=tuple(said), dropped={"topic": count} if count else {}, stamp=_GATE)


def outgoing_passages(bodies: Mapping[str, str]) -> Cleared:
    """The fact identities (-> the text to embed) a remote embeddings endpoint may be sent,
    as no room sees them and nothing personal: an identity passes when a copy of it in the
    index does (the same words team-wide are team-wide); one not in the index does not."""
    if not bodies:
        return Cleared(stamp=_GATE)
    rows = Fact.objects.filter(fact_id__in=list(bodies)).annotate(file_path=F("file__path"))
    cleared = outgoing(map(stored_from_row, rows), ctx=None, personal=False)
    passed = {fact.fact_id: fact for fact in cleared.facts}
    facts = tuple(
        replace(passed[fact_id], text=body) for fact_id, body in bodies.items() if fact_id in passed
    )
    return Cleared(facts=facts, dropped=cleared.dropped, stamp=_GATE)


def passages_cleared(
    embedder: object, fact_ids: list[str], bodies: list[str]
) -> tuple[list[str], "list[str] | Cleared"]:
    """The identities to embed and their texts as an embedder may be sent them: all to a
    model run here; to a remote one (`remote`), what `outgoing_passages` clears."""
    if not getattr(embedder, "remote", False):
        return fact_ids, bodies
    sent = outgoing_passages(dict(zip(fact_ids, bodies, strict=True)))
    return [fact.fact_id for fact in sent.facts], sent


def outgoing_query(text: str) -> Cleared:
    """A search query as it goes to a remote embeddings endpoint: the caller's own words,
    sent to find memory, not memory itself (`said`)."""
    return Cleared(said=(text,), stamp=_GATE)


def upkeep_audience(*, bot: str, scope: str) -> Context | None:
    """The room an upkeep job over one scope of `bot`'s store reads as: a person's memory as
    their direct room with the bot (so their pause and topics apply); anything else, no room."""
    kind, _, name = scope.partition(":")
    if kind != "user":
        return None
    return Context(bot=bot, room=Room(UPKEEP_ROOM, "direct"), person=name)


def _said(text: str, rule: Withholding, topics: Sequence[str], about: str | None) -> str:
    def touches(part: str) -> bool:
        return bool(
            rule.text_reason(part, about=about) or (topics and excluded_topic(part, list(topics)))
        )

    if not touches(text):
        return text
    parts = _SENTENCE_END.split(text)
    seps = _SENTENCE_END.findall(text)
    kept = [TOPIC_MARK if touches(part) else part for part in parts]
    return "".join(part + sep for part, sep in zip(kept, [*seps, ""], strict=True))


def _private_bots(facts: Sequence[StoredFact]) -> frozenset[str]:
    bots = {f.scope.partition(":")[2] for f in facts if f.scope.startswith("bot:")}
    if not bots:
        return frozenset()
    rows = Bot.objects.filter(slug__in=bots, private_memory=True).values_list("slug", flat=True)
    return frozenset(rows)


class _Decider:
    """Why one fact may not go out from this room (None: it may)."""

    def __init__(
        self, ctx: Context | None, personal: bool, rule: Withholding, private_bots: frozenset
    ) -> None:
        self.ctx = ctx
        self.personal = personal
        self.rule = rule
        self.private_bots = private_bots
        self.readable = {str(s) for s in readable_scopes(ctx)} if ctx else set()
        self.seen = visible(ctx) if ctx else frozenset({"context", "searchable"})

    def reason(self, fact: StoredFact) -> Dropped | None:
        if fact.visibility == "hidden":
            return "hidden"
        kind, _, name = fact.scope.partition(":")
        if self.ctx is not None and fact.scope not in self.readable:
            return "not readable"
        shared_only = self.ctx is None or not self.personal
        if self.ctx is None and kind in ("user", "room"):
            return "not readable"
        if fact.visibility not in self.seen:
            return "private"
        if shared_only and (
            kind in ("user", "room")
            or fact.visibility == "private"
            or (kind == "bot" and name in self.private_bots)
        ):
            return "private"
        return self.rule.reason(fact)
