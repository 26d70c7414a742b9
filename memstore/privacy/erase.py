"""Erase: forget a fact so that no trace of its text is left within the caller's reach. The one
erasure every front door uses: the API's forget with erase=true, the console's "Delete and
erase", About me's "Forget everywhere", Health's "Erase everywhere" and `manage.py memory
erase`.

A plain forget (`services.fact_forget`) removes the fact's lines and keeps them in the shards'
history, so it can be restored. An erase goes through every place
`memstore.privacy.stores.STORES` lists (the same list `verify-forgotten` checks): the memory
files (the ordinary forget), history (tombstones: "[erased <date> by <who>]"), cached
embeddings, and the stored text that quotes it (exchanges, learning events, proposals, lessons
said again, review decisions, idempotent replies, notes and their versions, every other file), within a `Reach`
(`memstore.privacy.reach`: a bot's, a person's, or everything). What was made from the fact
(`memstore.privacy.derived`: a "remember that" copy with the person's name, a merged or
superseding line, a lesson in an About me note) is erased with it, wherever it is kept, when
its owner is within the reach.

The erase takes the lock of every bot it touches in sorted order, so two erases never wait on
each other in a cycle; the stores rewrite what they own under those locks.
"""

from contextlib import ExitStack
from dataclasses import dataclass, field

from django.utils import timezone

from memstore.errors import FactNotFound
from memstore.facts.history import Change
from memstore.facts.locks import bot_lock
from memstore.privacy.derived import derived_copies, derived_target
from memstore.privacy.place import Erasing
from memstore.privacy.reach import Reach, reach_of_bot, reach_of_person, reach_of_workspace
from memstore.privacy.stores import RECORD_KINDS, STORES
from memstore.privacy.target import target_resolve, tombstone
from memstore.rules.failures import refusals_recorded

__all__ = [
    "Erasure",
    "Reach",
    "fact_erase",
    "reach_of_bot",
    "reach_of_person",
    "reach_of_workspace",
]


@dataclass(frozen=True, slots=True)
class Erasure:
    """What an erase did: the lines it removed, and how many history lines, cached embeddings
    and stored records (every other kind of store) it cleaned; `counts` by store kind."""

    removed: list[Change]
    history: int
    embeddings: int
    records: int
    counts: dict[str, int] = field(default_factory=dict)


@refusals_recorded("erase")
def fact_erase(
    *, reach: Reach, fact_id: str | None = None, text: str | None = None, by: str, via: str
) -> Erasure:
    """Remove every copy of a fact within `reach` from every store; FactNotFound if none held
    it, UnreadableFile (after cleaning the rest) if a file that is not UTF-8 holds it."""
    target = target_resolve(fact_id=fact_id, text=text)
    copies = derived_copies(target, reach)
    target = derived_target(target, copies)
    mark = tombstone(day=timezone.localdate().isoformat(), by=by)
    erasing = Erasing(fact_id=fact_id, text=text, by=by, via=via, mark=mark, derived=copies)
    counts: dict[str, int] = {}
    with ExitStack() as locks:
        # One fixed order (sorted slugs) for every erase: no two ever wait on each other.
        for bot in sorted({shard.bot for shard in (*reach.shards, *(c.shard for c in copies))}):
            locks.enter_context(bot_lock(bot))
        for store in STORES:
            counts[store.kind] = counts.get(store.kind, 0) + store.erase(target, reach, erasing)
    if erasing.stuck is not None:
        raise erasing.stuck
    if not any(counts.values()):
        raise FactNotFound("Nothing to erase: no copy of that fact where you may erase it.")
    return Erasure(
        removed=erasing.removed,
        history=counts["history"],
        embeddings=counts["embedding"],
        records=sum(counts[kind] for kind in RECORD_KINDS),
        counts=counts,
    )
