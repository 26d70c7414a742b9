"""What can reach a person's prompts: for each bot that knows them and each room kind (a direct
room with them, a group room, a routine), which of their facts would go into that bot's prompt
today, and for every other fact why not.

The prompt is built by `memstore.prompt.prompt_build`, the same builder the API's `/prompt`
uses, so the answer cannot drift from what bots get. Reasons a fact stays out:

    hidden        visibility=hidden: never in a prompt, never returned by recall
    searchable    visibility=searchable: found by recall, never put in a prompt
    budget        past the block's count or character budget (still found by recall)
    room kind     user memory is only read in direct rooms with the person

It renders nothing; the wording of each reason is the console's presenters'.
"""

from dataclasses import dataclass
from typing import Literal

from memstore.paths import Scope
from memstore.prompt import prompt_build
from memstore.ranking import merge_newest
from memstore.records import StoredFact
from memstore.selectors import context_build, facts_list

PREVIEW_ROOM = "console-about-me"
REACH_KINDS = ("direct", "group", "routine")
Reason = Literal["hidden", "searchable", "budget", "room kind"]


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


def prompt_reach(*, person: str, bots: list[str]) -> list[Reach]:
    """For each bot and room kind, what of the person's memory its prompt would hold today."""
    scope = Scope("user", person)
    copies = sorted(
        facts_list(scopes=[scope], limit=100_000).items,
        key=lambda f: (f.fact_id, f.shard_bot, f.file),
    )
    mine = merge_newest(copies)  # as the prompt merges shards: newest wins
    reaches = []
    for bot in bots:
        for kind in REACH_KINDS:
            reaches.append(_reach(bot=bot, kind=kind, person=person, mine=mine))
    return reaches


def _reach(*, bot: str, kind: str, person: str, mine: list[StoredFact]) -> Reach:
    if kind != "direct":
        return Reach(bot=bot, kind=kind, shown=[], left=[Left(f, "room kind") for f in mine])
    ctx = context_build(bot=bot, room_id=PREVIEW_ROOM, room_kind=kind, person=person)
    section = prompt_build(ctx=ctx)
    block = next(b for b in section.blocks if b.scope == f"user:{person}")
    shown = block.facts
    ids = {f.fact_id for f in shown}
    left = [Left(f, _reason(f)) for f in mine if f.fact_id not in ids]
    return Reach(bot=bot, kind=kind, shown=shown, left=left)


def _reason(fact: StoredFact) -> Reason:
    if fact.visibility == "hidden":
        return "hidden"
    if fact.visibility == "searchable":
        return "searchable"
    return "budget"
