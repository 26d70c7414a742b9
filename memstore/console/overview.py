"""The home page (bots with counts, recent changes, failures) and a bot's history page."""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count

from memstore.activity import ShardChange, changes_recent, shard_history_page, workspace_shards
from memstore.console.learning import learning_problems
from memstore.console.viewer import Viewer, scope_label
from memstore.errors import NotAllowed
from memstore.failures import Failure, failures_recent
from memstore.index import index_sync, memory_root
from memstore.markdown import parse_line
from memstore.models import Bot, Fact, MemoryFile
from memstore.paths import Scope, Shard, all_scopes

HISTORY_PAGE = 50
_ACTIONS = {"add": "added", "remove": "removed", "edit": "edited"}


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
        kind, _, name = r["scope_key"].partition(":")
        if kind == "user" and not (viewer.staff or name == viewer.person):
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


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """A recorded change as the console shows it."""

    item: ShardChange
    action: str  # added | removed | edited
    scope_label: str
    text: str  # the fact's text on the line (no date, no metadata)
    old_text: str  # for an edit: the text before
    restorable: bool
    when: datetime | None


def history_rows(items: list[ShardChange]) -> list[HistoryRow]:
    """Display rows for recorded changes."""
    rows = []
    for item in items:
        new, old = parse_line(item.change.line), parse_line(item.change.old_line)
        rows.append(
            HistoryRow(
                item=item,
                action=_ACTIONS.get(item.change.op, item.change.op),
                scope_label=scope_label(str(item.shard.scope)),
                text=new.text if new else item.change.line,
                old_text=old.text if old else "",
                restorable=item.change.op == "remove" and new is not None,
                when=_when(item.change.at),
            )
        )
    return rows


def _when(stamp: str) -> datetime | None:
    try:
        return datetime.fromisoformat(stamp)
    except ValueError:
        return None


def workspace_changes(*, viewer: Viewer, limit: int = 15) -> list[HistoryRow]:
    """The newest changes across every shard the person may see (reads history tails only)."""
    root = memory_root()
    shards = [s for s in workspace_shards(root) if viewer.may_see(s.scope)]
    return history_rows(changes_recent(root=root, shards=shards, limit=limit))


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
) -> tuple[list[HistoryRow], int | None]:
    """One of the bot's shards' history, newest first, a page at a time (and where to go on)."""
    if shard.bot != bot or not viewer.may_see(shard.scope):
        raise NotAllowed("That history is not one of this bot's shards you may see.")
    page = shard_history_page(
        root=memory_root(),
        shard=shard,
        before=before,
        limit=HISTORY_PAGE,
        removed_only=removed_only,
    )
    return history_rows(page.items), page.before


@dataclass(frozen=True, slots=True)
class Problems:
    """Everything that failed and is worth a person's attention."""

    refused: list[Failure]
    unreadable: list[tuple[str, str]]  # (file, why)
    learning: list  # memstore.learning's failed and refused activity


def problems_list(*, viewer: Viewer, limit: int = 10) -> Problems:
    """Refused writes, unreadable memory files, and learning failures."""
    unreadable = list(
        MemoryFile.objects.exclude(error="").order_by("path").values_list("path", "error")[:limit]
    )
    return Problems(
        refused=failures_recent(root=memory_root(), limit=limit),
        unreadable=unreadable,
        learning=learning_problems(viewer=viewer, limit=limit),
    )
