"""The home page (bots with counts, recent changes, what failed) and a bot's history page.

"What failed" gathers refused writes, unreadable files, learning failures, shard folders whose
name is not a bot slug (the index cannot read them as anyone's memory, so it skips them) and how
many lines on disk the secret detector flags (hand-written, or saved before a rule existed):
those are withheld from every read (`memstore.rules.withheld`), Recent changes included, until a
person erases or keeps them on the Health page.
"""

import os
import re
import threading
import time
from dataclasses import dataclass

from django.db import connection
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
from memstore.facts.markdown import parse_line
from memstore.facts.paging import Page
from memstore.facts.paths import Scope, Shard, all_scopes, memory_root
from memstore.facts.symlinks import links_found
from memstore.index import index_sync
from memstore.models import Bot, Fact, MemoryFile
from memstore.rules.failures import Failure, failures_recent
from memstore.rules.withheld import line_flagged, secrets_kept
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
    rooms: int  # legacy room memory
    private: int = 0  # private conversations' memory (only staff see it)


def bots_overview(*, viewer: Viewer) -> list[BotSummary]:
    """Every bot (registered or on disk) with fact counts: syncs the workspace, then one query."""
    root = memory_root()
    scopes = all_scopes(root)
    index_sync(scopes=scopes)
    names = dict(Bot.objects.values_list("slug", "display_name"))
    counts: dict[str, dict[str, int]] = {}
    for r in Fact.objects.values("scope_key", "shard_bot").annotate(n=Count("id")):
        scope = Scope.parse(r["scope_key"])
        kind = "private" if viewer.private_conversation(scope) else scope.kind
        if not viewer.may_see(scope):
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
            private=counts.get(b, {}).get("private", 0),
        )
        for b in bots
    ]


def workspace_changes(*, viewer: Viewer, limit: int = 15) -> list[ShardChange]:
    """The newest changes across every shard the person may see (reads history tails only),
    less those whose line the secret detector flags and nobody kept."""
    root = memory_root()
    shards = [s for s in workspace_shards(root) if viewer.may_see(s.scope)]
    changes = changes_recent(root=root, shards=shards, limit=limit * 2)
    flagged = [item for item in changes if _change_flagged(item.change)]
    if flagged:
        kept = secrets_kept()
        flagged = [item for item in flagged if item.change.fact_id not in kept]
    return [item for item in changes if item not in flagged][:limit]


def _change_flagged(change) -> bool:
    for line in (change.line, change.old_line):
        fact = parse_line(line) if line else None
        if fact is not None and line_flagged(fact.text, fact.meta):
            return True
    return False


# Per memory file as last synced (its row, mtime and size): the identities of its lines the
# detector flags. The detector costs ~70 µs a fact, so each file is checked once per change, and
# a page checks files for at most SECRETS_BUDGET_S: a cold process (100,000 facts: ~7 s of
# checking) finishes over a few views, saying meanwhile how many files it has still to check.
_FLAGGED: dict[tuple[str, str], tuple[tuple, frozenset[str]]] = {}
_FLAGGED_LOCK = threading.Lock()
SECRETS_BUDGET_S = 0.25
_CHECK_BATCH = 5  # files whose facts one statement loads (a log file: ~100 facts)


@dataclass(frozen=True, slots=True)
class SecretCount:
    """Lines on disk the secret detector flags (not kept), and files not checked yet."""

    lines: int = 0
    unchecked: int = 0


def secrets_flagged(*, viewer: Viewer, budget_s: float = SECRETS_BUDGET_S) -> SecretCount:
    """How many fact lines the person may see that the secret detector flags and nobody kept
    (files not checked within the budget are counted as unchecked)."""
    keys = [str(s) for s in all_scopes(memory_root()) if viewer.may_see(s)]
    files = MemoryFile.objects.filter(scope_key__in=keys).values_list(
        "id", "path", "mtime_ns", "size"
    )
    db = connection.settings_dict["NAME"]
    current = {(db, path): (pk, mtime, size) for pk, path, mtime, size in files}
    with _FLAGGED_LOCK:
        todo = [key for key, stamp in current.items() if _FLAGGED.get(key, ((),))[0] != stamp]
    started = time.monotonic()
    for at in range(0, len(todo), _CHECK_BATCH):
        if time.monotonic() - started > budget_s:
            break
        batch = {current[key][0]: key for key in todo[at : at + _CHECK_BATCH]}
        found: dict[int, set[str]] = {pk: set() for pk in batch}
        rows = Fact.objects.filter(file_id__in=list(batch)).values_list(
            "file_id", "fact_id", "text", "meta"
        )
        for file_id, fact_id, text, meta in rows:
            if line_flagged(text, meta):
                found[file_id].add(fact_id)
        with _FLAGGED_LOCK:
            for pk, key in batch.items():
                _FLAGGED[key] = (current[key], frozenset(found[pk]))
    flagged: set[str] = set()
    unchecked = 0
    with _FLAGGED_LOCK:
        for key, stamp in current.items():
            known = _FLAGGED.get(key)
            if known is None or known[0] != stamp:
                unchecked += 1
            else:
                flagged |= known[1]
    lines = len(flagged - secrets_kept()) if flagged else 0
    return SecretCount(lines=lines, unchecked=unchecked)


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
    links: list[str]  # symbolic links inside memory: never followed nor read (staff only)
    secrets: SecretCount = SecretCount()  # lines the detector flags: withheld until erased/kept


def problems_list(*, viewer: Viewer, limit: int = 10) -> Problems:
    """Refused writes, unreadable memory files, learning failures, misnamed shard folders and
    symbolic links inside memory."""
    unreadable = list(
        MemoryFile.objects.exclude(error="").order_by("path").values_list("path", "error")[:limit]
    )
    return Problems(
        refused=failures_recent(root=memory_root(), limit=limit),
        unreadable=unreadable,
        learning=learning_problems(viewer=viewer, limit=limit),
        shards=invalid_shard_folders(viewer=viewer)[:limit],
        links=memory_links(viewer=viewer, limit=limit),
        secrets=secrets_flagged(viewer=viewer),
    )


def memory_links(*, viewer: Viewer, limit: int = 100) -> list[str]:
    """Symbolic links inside the memory folder (files or folders, relative to MEMORY_ROOT):
    never followed, so whatever they point at is not anyone's memory. For staff, who can fix
    the files; a link is nobody's memory, so nobody else is shown where it points."""
    return links_found(memory_root(), limit=limit) if viewer.staff else []


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
