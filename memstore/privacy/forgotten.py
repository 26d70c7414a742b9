"""Where a fact still is: the scan behind `manage.py memory verify-forgotten`, and the copies a
forget could not touch.

`occurrences_find` looks in every place `memstore.privacy.stores.STORES` lists (the same list
an erase cleans), across the whole workspace, for the fact and what was made from it
(`memstore.privacy.derived`); a fact line or index row that holds its text without being linked
to it is listed too (a safety net: never "no copy" while one is there). What counts as a copy
is `memstore.privacy.target`'s rule. `copies_outside` answers a forget with the copies other bots'
shards of the same scopes still hold. This module only reads.
"""

from collections.abc import Iterable

from memstore.facts.paths import Shard, all_scopes, memory_root
from memstore.facts.records import StoredFact, stored_from_row
from memstore.index import index_sync
from memstore.models import Fact
from memstore.privacy.derived import derived_copies, derived_target
from memstore.privacy.reach import reach_of_workspace
from memstore.privacy.stores import STORES
from memstore.privacy.target import Occurrence, Target, target_ids, target_resolve

__all__ = ["copies_outside", "occurrences_find", "target_ids", "target_resolve"]


def occurrences_find(*, target: Target) -> list[Occurrence]:
    """Every remaining occurrence of the fact anywhere in the workspace, in every store."""
    index_sync(scopes=all_scopes(memory_root()))  # the index as every reader would see it now
    everything = reach_of_workspace()
    target = derived_target(target, derived_copies(target, everything))
    return [found for store in STORES for found in store.find(target, everything)]


def copies_outside(*, shards: Iterable[Shard], ids: Iterable[str]) -> list[StoredFact]:
    """Copies of these identities in the scopes of `shards` but in other bots' shards: what a
    forget of those shards could not touch, and may still reach the caller's prompt."""
    shards = list(shards)
    scopes = list(dict.fromkeys(s.scope for s in shards))
    index_sync(scopes=scopes)
    mine = {(str(s.scope), s.bot) for s in shards}
    rows = Fact.objects.filter(scope_key__in=[str(s) for s in scopes], fact_id__in=list(ids))
    copies = [stored_from_row(r) for r in rows.select_related("file")]
    return sorted(
        (c for c in copies if (c.scope, c.shard_bot) not in mine), key=lambda c: (c.scope, c.file)
    )
