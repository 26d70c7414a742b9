"""How the console shows a person's About me: a fact about them (which bot, which room, how it
was saved), the page's summary line, a line of their controls' history, and what can reach
their prompts with each reason in words.

A part of the console's presenters (`memoryconsole.web.presenters`), kept apart for its size.
Pure: no queries, no file I/O.
"""

from dataclasses import dataclass
from datetime import date, timedelta

from memoryconsole.web.presenters.common import GROUPINGS, NEW_DAYS, origin, plural
from memstore.console.aboutme import AboutFact
from memstore.console.reach import Reach
from memstore.facts.paging import Page
from memstore.facts.paths import scope_split
from memstore.facts.validity import is_expired, until_of
from memstore.rules.controls import ControlChange
from memstore.rules.protected import fact_requested

REACH_KIND_LABELS = {"direct": "Direct with you", "group": "Group rooms", "routine": "Routines"}
REACH_REASONS = {
    "hidden": "hidden: never put in a prompt",
    "searchable": "searchable only: recall finds it, prompts don't",
    "expired": "past its until date: no longer true, so neither prompts nor recall use it",
    "budget": "past the prompt's budget: recall still finds it",
    "room kind": "not this room kind: what bots know about you is read only in direct rooms",
    "topic": "on one of your excluded topics: left out of every prompt and recall",
    "paused": "memory is paused: left out of prompts and recall until you resume it",
    "secret": "looks like a secret: left out until someone erases it or keeps it (Health)",
    "not readable": "this bot keeps a private memory: read only in rooms it opened",
    "private": "private: only in direct rooms",
    "instruction": "reads as an instruction to a bot: left out until a person accepts or erases it",
}
_CONTROL_ACTIONS = {
    "pause": "paused memory",
    "resume": "resumed memory",
    "exclude": "excluded the topic",
    "include": "allowed the topic again",
}


@dataclass(frozen=True, slots=True)
class AboutFactView:
    """A fact about the person as the About me page shows it."""

    item: AboutFact
    bot: str
    room: str  # "from room dm-ann", or "room not recorded"
    origin: str
    is_new: bool
    hidden: bool
    pinned: bool = False  # saved on request, not captured automatically
    expired: bool = False  # its `until` day has passed

    @property
    def until(self) -> str:
        """Its `until` date as written, or ""."""
        return until_of(self.item.fact.meta) or ""

    @property
    def fact(self):
        """The stored fact."""
        return self.item.fact


def about_fact_view(item: AboutFact, *, today: date) -> AboutFactView:
    """How one fact about the person looks today."""
    fact = item.fact
    return AboutFactView(
        item=item,
        bot=item.bot,
        room=f"from room {item.room}" if item.room else "room not recorded",
        origin=origin(item.by, item.via) or "origin not recorded",
        is_new=fact.day >= today - timedelta(days=NEW_DAYS),
        hidden=fact.visibility == "hidden",
        pinned=fact_requested(fact.meta, item.via),
        expired=is_expired(fact.meta, today),
    )


@dataclass(frozen=True, slots=True)
class AboutGroup:
    """The facts of one bot, conversation or type, on About me grouped."""

    label: str
    rows: list[AboutFactView]


def about_groups(rows: list[AboutFactView], group: str) -> list[AboutGroup]:
    """The rows grouped by bot, conversation (the room a fact was learned in) or type, the
    groups in order of their newest fact; [] for no grouping."""
    if group not in GROUPINGS:
        return []
    found: dict[str, list[AboutFactView]] = {}
    for row in rows:
        if group == "bot":
            key = row.bot
        elif group == "room":
            key = f"Room {row.item.room}" if row.item.room else "No conversation recorded"
        else:
            key = row.fact.meta.get("type") or "fact"
        found.setdefault(key, []).append(row)
    return [AboutGroup(label=label, rows=members) for label, members in found.items()]


def about_summary(page: Page, q: str) -> str:
    """ "12 facts about you" / "2 facts match “lisbon”"."""
    n = page.total or 0
    facts = plural(n, "fact", "facts")
    return f"{n} {facts} match “{q}”" if q else f"{n} {facts} known by the bots"


def control_change_text(change: ControlChange) -> str:
    """One audit line: "2026-11-30 22:10 UTC · ann paused memory (console)"."""
    when = change.at[:16].replace("T", " ")
    what = _CONTROL_ACTIONS.get(change.action, change.action)
    topic = f" “{change.topic}”" if change.topic else ""
    via = f" ({change.via})" if change.via else ""
    return f"{when} UTC · {change.by or 'someone'} {what}{topic}{via}"


@dataclass(frozen=True, slots=True)
class ReachView:
    """One bot in one room kind, as the page lists it."""

    bot: str
    kind: str
    label: str
    shown: list[str]
    left: list[tuple[str, str]]  # (fact text, why it stays out)
    note: str  # the person's "About you" note as the prompt holds it
    note_left: str  # why their note is not in this prompt ("" if it is, or none was written)
    named: list[tuple[str, str, str]]  # team-wide or project fact naming them: (text, where, why)


def reach_views(reaches: list[Reach]) -> list[ReachView]:
    """Each bot and room kind with its shown fact texts and the rest with their reasons."""
    return [
        ReachView(
            bot=r.bot,
            kind=r.kind,
            label=REACH_KIND_LABELS.get(r.kind, r.kind),
            shown=[f.body for f in r.shown],
            left=[(x.fact.body, REACH_REASONS[x.reason]) for x in r.left],
            note=r.note,
            note_left=REACH_REASONS[r.note_left] if r.note_left else "",
            named=[
                (x.fact.body, _where(x.fact.scope), REACH_REASONS[x.reason] if x.reason else "")
                for x in r.named
            ],
        )
        for r in reaches
    ]


def _where(scope: str) -> str:
    kind, name = scope_split(scope)
    if kind == "server":
        return "workspace memory (every bot's prompts)"
    return "the bot's own memory (team-wide)" if kind == "bot" else f"project {name}, when in play"
