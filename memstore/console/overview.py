"""The home page (bots with counts, recent changes, what failed) and a bot's history page.

"What failed" gathers refused writes, unreadable files, learning failures and shard folders
whose name is not a bot slug (the index cannot read them as anyone's memory, so it skips them).
"""

import os
import re
from dataclasses import dataclass

from django.db.models import Count

from memstore.console.learning import learning_problems
from memstore.console.viewer import Viewer
from memstore.errors import NotAllowed
from memstore.facts.activity import (
    ShardChange,
    changes_recent,
    shard_history_page,
    workspace_shards,
)
from memstore.facts.paging import Page
from memstore.facts.paths import Scope, Shard, all_scopes, memory_root
from memstore.index import index_sync
from memstore.models import Bot, Fact, MemoryFile
from memstore.rules.failures import Failure, failures_recent
from memstore.vocabulary import SLUG_PATTERN

HISTORY_PAGE = 50
_SLUG_RE = re.compile(SLUG_PATTERN)


@dataclass(frozen=True, slots=True)
class BotSummary:
    """A bot on the home page with the facts it wrote, per kind of scope the person may see."""

    bot: str
    display_name: str
    own: int
    people: int
    projects: int
    rooms: int


def bots_overview(*, viewer: Viewer) -> list[BotSummary]:
    """Every bot (registered or on disk) with fact counts: syncs the workspace, then one query."""
    root = memory_root()
    scopes = all_scopes(root)
    index_sync(scopes=scopes)
    names = dict(Bot.objects.values_list("slug", "display_name"))
    counts: dict[str, dict[str, int]] = {}
    for r in Fact.objects.values("scope_key", "shard_bot").annotate(n=Count("id")):
        scope = Scope.parse(r["scope_key"])
        kind = scope.kind
        if kind == "user" and not (viewer.staff or scope.name == viewer.person):
            continue
        per = counts.setdefault(r["shard_bot"], {})
        per[kind] = per.get(kind, 0) + r["n"]
    bots = sorted(set(names) | {s.name for s in scopes if s.kind == "bot"} | set(counts))
    return [
        BotSummary(
            bot=b,
            display_name=names.get(b, ""),
            own=counts.get(b, {}).get("bot", 0),
            people=counts.get(b, {}).get("user", 0),
            projects=counts.get(b, {}).get("project", 0),
            rooms=counts.get(b, {}).get("room", 0),
        )
        for b in bots
    ]


def workspace_changes(*, viewer: Viewer, limit: int = 15) -> list[ShardChange]:
    """The newest changes across every shard the person may see (reads history tails only)."""
    root = memory_root()
    shards = [s for s in workspace_shards(root) if viewer.may_see(s.scope)]
    return changes_recent(root=root, shards=shards, limit=limit)


def bot_shards(*, bot: str, viewer: Viewer) -> list[Shard]:
    """Every shard this bot writes that the person may see, its own memory first."""
    root = memory_root()
    shards = [Scope("bot", bot).shard(bot)]
    for scope in all_scopes(root):
        if scope.kind != "bot" and viewer.may_see(scope) and (root / scope.rel / bot).is_dir():
            shards.append(scope.shard(bot))
    return shards


def bot_history(
    *, bot: str, viewer: Viewer, shard: Shard, before: int | None, removed_only: bool
) -> Page[ShardChange]:
    """One of the bot's shards' history, newest first, a page at a time (and where to go on)."""
    if shard.bot != bot or not viewer.may_see(shard.scope):
        raise NotAllowed("That history is not one of this bot's shards you may see.")
    return shard_history_page(
        root=memory_root(),
        shard=shard,
        before=before,
        limit=HISTORY_PAGE,
        removed_only=removed_only,
    )


@dataclass(frozen=True, slots=True)
class Problems:
    """Everything that failed and is worth a person's attention."""

    refused: list[Failure]
    unreadable: list[tuple[str, str]]  # (file, why)
    learning: list  # memstore.learning's failed and refused activity
    shards: list[str]  # shard folders whose name is not a bot slug (relative to MEMORY_ROOT)


def problems_list(*, viewer: Viewer, limit: int = 10) -> Problems:
    """Refused writes, unreadable memory files, learning failures and misnamed shard folders."""
    unreadable = list(
        MemoryFile.objects.exclude(error="").order_by("path").values_list("path", "error")[:limit]
    )
    return Problems(
        refused=failures_recent(root=memory_root(), limit=limit),
        unreadable=unreadable,
        learning=learning_problems(viewer=viewer, limit=limit),
        shards=invalid_shard_folders(viewer=viewer)[:limit],
    )


def invalid_shard_folders(*, viewer: Viewer) -> list[str]:
    """Folders under a shared scope's `by-agent/` whose name is not a valid bot slug, in scopes
    the person may see: a shard nobody's memory can be read from."""
    root, found = memory_root(), []
    for scope in all_scopes(root):
        if scope.kind == "bot" or not viewer.may_see(scope):
            continue
        try:
            with os.scandir(root / scope.rel) as entries:
                names = sorted(e.name for e in entries if e.is_dir())
        except (FileNotFoundError, NotADirectoryError):
            continue
        found.extend(f"{scope.rel}/{n}" for n in names if not _SLUG_RE.fullmatch(n))
    return found
