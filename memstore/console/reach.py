"""What can reach a person's prompts: for each bot that knows them and each room kind (a direct
room with them, a group room, a routine), which of their facts would go into that bot's prompt
today, and for every other fact why not.

The prompt is built by `memstore.prompt.answer.prompt_answer`, the same builder the API's
`/prompt` uses (the always-on notes, then the memory blocks), so the answer cannot drift from
what bots get. The person's "About you" note goes into direct rooms with them only. Reasons a
fact (or the note) stays out:

    hidden        visibility=hidden: never in a prompt, never returned by recall
    searchable    visibility=searchable: found by recall, never put in a prompt
    budget        past the block's count or character budget (still found by recall)
    room kind     user memory is only read in direct rooms with the person
    topic, paused, secret   withheld from every read (`memstore.rules.withheld`): on one of
                  the person's excluded topics, their memory is paused, or it looks like a secret

Besides their user memory, each bot lists the facts of its own (team-wide) memory, of the
projects it joined and of the workspace's memory that name the person ("Sam's salary band is
L5"): those reach the bot's prompts in any room (a project's when it is in play), unless the
same rule that gates every model call (`memstore.rooms.outgoing`) holds them back in that room:

    not readable  the bot keeps a private memory, read only in its own rooms (a group room it
                  did not open reads none of it)
    private       visibility=private: only in direct rooms

Every other bot whose memory names the person is listed too, as a group room (where they can
meet it), whether or not it is linked to the person: a team-wide fact reaches every group room
the bot talks in.

It renders nothing; the wording of each reason is the console's presenters'.
"""

import re
from dataclasses import dataclass, field, replace
from typing import Literal

from django.db.models import F
from django.utils import timezone

from memstore.facts.paths import Scope
from memstore.facts.ranking import merge_newest
from memstore.facts.records import StoredFact, stored_from_row
from memstore.facts.validity import is_expired
from memstore.index import index_sync
from memstore.models import Fact, ProjectMember
from memstore.prompt.answer import prompt_answer
from memstore.prompt.notes import note_read
from memstore.rooms.access import WORKSPACE
from memstore.rooms.context import context_open
from memstore.rooms.outgoing import outgoing_reasons
from memstore.rules.controls import names
from memstore.rules.withheld import Withholding, withholding_for
from memstore.store.selectors import facts_list
from memstore.upkeep.store import store_bots

PREVIEW_ROOM = "console-about-me"
REACH_KINDS = ("direct", "group", "routine")
Reason = Literal[
    "hidden",
    "searchable",
    "expired",
    "budget",
    "room kind",
    "topic",
    "paused",
    "secret",
    "not readable",
    "private",
]


@dataclass(frozen=True, slots=True)
class Left:
    """A fact that would not go into the prompt, and why."""

    fact: StoredFact
    reason: Reason


@dataclass(frozen=True, slots=True)
class Reach:
    """One bot in one room kind: the person's facts its prompt would hold, and the rest."""

    bot: str
    kind: str
    shown: list[StoredFact]
    left: list[Left]
    note: str = ""  # the person's "About you" note as the prompt holds it ("" if not in it)
    note_left: Reason | None = None  # why a note the person wrote is not in this prompt
    named: list["Named"] = field(default_factory=list)  # its team-wide and project facts


@dataclass(frozen=True, slots=True)
class Named:
    """A fact of a bot's own or a project's memory that names the person: whether it can reach
    the bot's prompt (`reason` None) or why not."""

    fact: StoredFact
    reason: Reason | None


def prompt_reach(*, person: str, bots: list[str]) -> list[Reach]:
    """For each bot and room kind, what of the person's memory its prompt would hold today."""
    scope = Scope("user", person)
    copies = sorted(
        facts_list(scopes=[scope], limit=100_000).items,
        key=lambda f: (f.fact_id, f.shard_bot, f.file),
    )
    mine = merge_newest(copies)  # as the prompt merges shards: newest wins
    wrote_note = bool(note_read(kind="you", name=person).text.strip())
    rules = {"direct": withholding_for(person=person), "other": withholding_for(person=None)}
    others = [bot for bot in store_bots() if bot not in bots]
    named = facts_naming(person=person, bots=[*bots, *others])
    reaches = []
    for bot in bots:
        for kind in REACH_KINDS:
            rule = rules["direct" if kind == "direct" else "other"]
            reach = _reach(bot=bot, kind=kind, person=person, mine=mine, rule=rule)
            if wrote_note and not reach.note:
                reach = replace(reach, note_left="room kind" if kind != "direct" else "budget")
            theirs = _named(bot, kind, person, named.get(bot, []), rule)
            reaches.append(replace(reach, named=theirs))
    for bot in others:  # not linked to the person: they meet in group rooms
        if theirs := _named(bot, "group", person, named.get(bot, []), rules["other"]):
            reaches.append(Reach(bot=bot, kind="group", shown=[], left=[], named=theirs))
    return reaches


def facts_naming(*, person: str, bots: list[str]) -> dict[str, list[StoredFact]]:
    """For each bot, the facts of its own memory and of the projects it joined that name the
    person (merged across shards, newest first)."""
    joined: dict[str, set[str]] = {bot: set() for bot in bots}
    for bot, project in ProjectMember.objects.filter(bot__slug__in=bots).values_list(
        "bot__slug", "project"
    ):
        joined[bot].add(project)
    scopes = [Scope("bot", b) for b in bots]
    scopes += [Scope("project", p) for p in sorted(set().union(*joined.values()))]
    scopes.append(WORKSPACE)
    index_sync(scopes=scopes)
    # Postgres narrows by the name as a whole word; `names` decides, as the write rule does.
    rows = Fact.objects.filter(
        scope_key__in=[str(s) for s in scopes], text__iregex=rf"\m{re.escape(person)}\M"
    ).annotate(file_path=F("file__path"))
    found = [f for f in map(stored_from_row, rows) if names(f.text, person)]
    merged = sorted(merge_newest(found), key=lambda f: (-f.day.toordinal(), f.fact_id))
    return {
        bot: [
            f
            for f in merged
            if f.scope in (f"bot:{bot}", str(WORKSPACE))
            or f.scope.removeprefix("project:") in joined[bot]
        ]
        for bot in bots
    }


def _reach(*, bot: str, kind: str, person: str, mine: list[StoredFact], rule: Withholding) -> Reach:
    if kind != "direct":
        return Reach(bot=bot, kind=kind, shown=[], left=[Left(f, "room kind") for f in mine])
    ctx = context_open(bot=bot, room_id=PREVIEW_ROOM, room_kind=kind, person=person)
    answer = prompt_answer(ctx=ctx)  # a look, not a use
    block = next((b for b in answer.section.blocks if b.scope == f"user:{person}"), None)
    shown = block.facts if block else []
    ids = {f.fact_id for f in shown}
    left = [Left(f, _reason(f, rule)) for f in mine if f.fact_id not in ids]
    note = next((n.text.strip() for n in answer.notes if n.kind == "you"), "")
    return Reach(bot=bot, kind=kind, shown=shown, left=left, note=note)


def _named(
    bot: str, kind: str, person: str, facts: list[StoredFact], rule: Withholding
) -> list[Named]:
    """The facts naming the person that a bot holds, each with why it can't reach the bot's
    prompt in this room kind (the outgoing gate's rule, a project's as when it is in play)."""
    if not facts:
        return []
    found = []
    for project in dict.fromkeys(_project(f) for f in facts):
        ctx = context_open(
            bot=bot,
            room_id=PREVIEW_ROOM,
            room_kind=kind,
            person=person if kind == "direct" else None,
            projects=[project] if project else [],
        )
        ctx = replace(ctx, own_room=False)  # a group room someone else opened
        these = [f for f in facts if _project(f) == project]
        reasons = outgoing_reasons(these, ctx=ctx, rule=rule)
        found += [
            (f, Named(f, gated or _named_reason(f, rule)))
            for f, gated in zip(these, reasons, strict=True)
        ]
    order = {id(f): n for n, f in enumerate(facts)}
    return [named for _, named in sorted(found, key=lambda pair: order[id(pair[0])])]


def _project(fact: StoredFact) -> str:
    kind, _, name = fact.scope.partition(":")
    return name if kind == "project" else ""


def _named_reason(fact: StoredFact, rule: Withholding) -> Reason | None:
    if withheld := rule.reason(fact):
        return withheld
    if fact.visibility in ("hidden", "searchable"):
        return fact.visibility  # type: ignore[return-value]
    if is_expired(fact.meta, timezone.localdate()):
        return "expired"
    return None


def _reason(fact: StoredFact, rule: Withholding) -> Reason:
    if withheld := rule.reason(fact):
        return withheld
    if fact.visibility == "hidden":
        return "hidden"
    if fact.visibility == "searchable":
        return "searchable"
    if is_expired(fact.meta, timezone.localdate()):
        return "expired"
    return "budget"
