"""What can reach a person's prompts: for each bot that knows them and each room kind (a direct
room with them, a group room, a routine), which of their facts would go into that bot's prompt
today, and for every other fact why not.

The prompt is built by `memstore.prompt.budget.prompt_answer`, the same builder the API's
`/prompt` uses (the always-on notes, then the memory blocks), so the answer cannot drift from
what bots get. The person's "About you" note goes into direct rooms with them only. Reasons a
fact (or the note) stays out:

    hidden        visibility=hidden: never in a prompt, never returned by recall
    searchable    visibility=searchable: found by recall, never put in a prompt
    budget        past the block's count or character budget (still found by recall)
    room kind     user memory is only read in direct rooms with the person

It renders nothing; the wording of each reason is the console's presenters'.
"""

from dataclasses import dataclass, replace
from typing import Literal

from memstore.facts.paths import Scope
from memstore.facts.ranking import merge_newest
from memstore.facts.records import StoredFact
from memstore.prompt.budget import prompt_answer
from memstore.prompt.notes import note_read
from memstore.rooms.context import context_open
from memstore.store.selectors import facts_list

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
    note: str = ""  # the person's "About you" note as the prompt holds it ("" if not in it)
    note_left: Reason | None = None  # why a note the person wrote is not in this prompt


def prompt_reach(*, person: str, bots: list[str]) -> list[Reach]:
    """For each bot and room kind, what of the person's memory its prompt would hold today."""
    scope = Scope("user", person)
    copies = sorted(
        facts_list(scopes=[scope], limit=100_000).items,
        key=lambda f: (f.fact_id, f.shard_bot, f.file),
    )
    mine = merge_newest(copies)  # as the prompt merges shards: newest wins
    wrote_note = bool(note_read(kind="you", name=person).text.strip())
    reaches = []
    for bot in bots:
        for kind in REACH_KINDS:
            reach = _reach(bot=bot, kind=kind, person=person, mine=mine)
            if wrote_note and not reach.note:
                reach = replace(reach, note_left="room kind" if kind != "direct" else "budget")
            reaches.append(reach)
    return reaches


def _reach(*, bot: str, kind: str, person: str, mine: list[StoredFact]) -> Reach:
    if kind != "direct":
        return Reach(bot=bot, kind=kind, shown=[], left=[Left(f, "room kind") for f in mine])
    ctx = context_open(bot=bot, room_id=PREVIEW_ROOM, room_kind=kind, person=person)
    answer = prompt_answer(ctx=ctx, count_usage=False)  # a look, not a use
    block = next((b for b in answer.section.blocks if b.scope == f"user:{person}"), None)
    shown = block.facts if block else []
    ids = {f.fact_id for f in shown}
    left = [Left(f, _reason(f)) for f in mine if f.fact_id not in ids]
    note = next((n.text.strip() for n in answer.notes if n.kind == "you"), "")
    return Reach(bot=bot, kind=kind, shown=shown, left=left, note=note)


def _reason(fact: StoredFact) -> Reason:
    if fact.visibility == "hidden":
        return "hidden"
    if fact.visibility == "searchable":
        return "searchable"
    return "budget"
