"""The section's shape (settings.PROMPT_SHAPE): the pure rules of the `seed` shape.

`blocks` (the default) is SPEC §5.2: each block shows profile facts, then the highest-ranked
log facts, each part within a count and a character budget (`memstore.prompt.compose`).
`seed` is the seed design's: each block is one category of at most `entries` entries, the
person's and the bot's own memory (and a private conversation's) newest date first, profile
and log facts together; workspace memory (projects, the workspace's records) by weight first,
then newest date. Each entry longer than `entry_chars` characters is cut at a word boundary and
ends with "…"; the whole fact stays on disk and recall finds it.

Owns: `Shape`, `PERSONAL` (the kinds ordered by recency), `seed_order` (the order of one
category, the same as `memstore.prompt.indexed` reads it) and `entry_cut`. No I/O here.

Does not: read settings (`section.prompt_shape`), merge shards or decide visibility
(`compose.block_compose` does, for both shapes), or render the block (`compose`).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from memstore.facts.ranking import weight_of
from memstore.facts.records import StoredFact

ShapeName = Literal["blocks", "seed"]
SHAPES: tuple[ShapeName, ...] = ("blocks", "seed")
# Kinds whose category is listed newest first; the others (project, server) weight first.
PERSONAL = frozenset({"bot", "user", "room"})
ELLIPSIS = "\u2026"


@dataclass(frozen=True, slots=True)
class Shape:
    """How blocks are shaped: `blocks`, or `seed` with its entry cap and entry length."""

    name: ShapeName = "blocks"
    entries: int = 20
    entry_chars: int = 200

    @property
    def seed(self) -> bool:
        return self.name == "seed"


def seed_order(kind: str, facts: Iterable[StoredFact]) -> list[StoredFact]:
    """One seed category best first: newest date first for personal kinds, weight first then
    newest date for workspace kinds; ties by rank, then a later file, then a later line."""

    def recency(f: StoredFact) -> tuple:
        return (f.day, f.rank, f.file, f.position)

    ordered = sorted(facts, key=lambda f: f.fact_id)  # stable: equal keys keep identity order
    if kind in PERSONAL:
        ordered.sort(key=recency, reverse=True)
    else:
        ordered.sort(key=lambda f: (weight_of(tier=f.tier, meta=f.meta), *recency(f)), reverse=True)
    return ordered


def entry_cut(text: str, chars: int) -> str:
    """`text` when it has at most `chars` characters, else cut at the last word boundary that
    leaves room for "…" (mid-word only when one word is longer than the room) and ended with it."""
    if len(text) <= chars:
        return text
    room = text[: chars - 1]
    if not (text[chars - 1].isspace() or room[-1:].isspace()):  # inside a word: drop it
        words = room.rsplit(None, 1)
        room = words[0] if len(words) == 2 else room
    return room.rstrip(" ,;:") + ELLIPSIS
