"""A bot's store as upkeep, synthesis and the health report see it: every shard the bot writes
(its own memory, and its shards of people's and projects' memory), read from the index after a
sync, and the vectors of those facts under the current embedding model (a bounded number
computed if missing)."""

from django.db.models import F, Q

from memstore.facts.paths import Scope, Shard, all_scopes, memory_root
from memstore.facts.records import StoredFact, stored_from_row
from memstore.index import index_sync
from memstore.models import Fact
from memstore.recall.vectors import embedder_current, vectors_ensure, vectors_fetch


def bot_store_shards(bot: str) -> list[Shard]:
    """Every shard `bot` writes: its own memory and its shards in user and project scopes."""
    root = memory_root()
    shards = [Scope("bot", bot).shard(bot)]
    for scope in all_scopes(root):
        if scope.kind in ("user", "project") and (root / scope.rel / bot).is_dir():
            shards.append(scope.shard(bot))
    return shards


def store_bots() -> list[str]:
    """Every bot with a store: registered ones and those with memory on disk."""
    from memstore.models import Bot

    on_disk = {s.name for s in all_scopes(memory_root()) if s.kind == "bot"}
    return sorted(set(Bot.objects.values_list("slug", flat=True)) | on_disk)


def workspace_shards() -> list[Shard]:
    """Every writable shard of the workspace (legacy room shards are read-only)."""
    root = memory_root()
    shards = []
    for scope in all_scopes(root):
        if scope.kind == "bot":
            shards.append(scope.shard(scope.name))
        elif scope.kind in ("user", "project"):
            for entry in sorted((root / scope.rel).iterdir()):
                if entry.is_dir():
                    try:
                        shards.append(scope.shard(entry.name))
                    except Exception:  # a folder whose name is not a bot slug is not a shard
                        continue
    return shards


def store_facts(*, shards: list[Shard]) -> list[StoredFact]:
    """The facts of these shards (one per file line), synced first, oldest first."""
    if not shards:
        return []
    index_sync(scopes=list(dict.fromkeys(s.scope for s in shards)))
    condition = Q(pk__in=[])
    for shard in shards:
        condition |= Q(scope_key=str(shard.scope), shard_bot=shard.bot)
    rows = Fact.objects.filter(condition).annotate(file_path=F("file__path"))
    return [stored_from_row(r) for r in rows.order_by("day", "fact_id")]


def store_vectors(facts: list[StoredFact], *, compute: int = 0) -> dict | None:
    """Unit vectors of these facts under the current embedding model, or None when no model is
    installed: then duplicates are found by words. At most `compute` missing vectors are
    computed here (the health report computes none: a fact not yet embedded is compared by
    words until the background embedding reaches it)."""
    embedder = embedder_current()
    if embedder is None or not facts:
        return None
    texts = {f.fact_id: f.text for f in facts}
    found = vectors_fetch(embedder.name, list(texts))
    missing = [fact_id for fact_id in texts if fact_id not in found][:compute]
    if missing:
        try:
            vectors_ensure({fact_id: texts[fact_id] for fact_id in missing}, embedder=embedder)
        except Exception:  # a remote model that is down: those go by words, as recall does
            return found
        found.update(vectors_fetch(embedder.name, missing))
    return found
