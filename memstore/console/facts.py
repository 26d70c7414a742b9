"""A bot's page: its tabs, and its facts a page at a time, newest first.

Every request costs the same few queries however many facts a bot has: one for the project
registry, one to sync (stats only when nothing changed), one to count and one for the page,
which is read by keyset (day, id) from an index so page 1,000 is as fast as page 1. A search
is not a page of facts: it is `memstore.console.search`, the API's recall.
"""

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.db.models import BooleanField, Count, F, Q
from django.db.models.expressions import RawSQL
from django.utils import timezone

from memstore.console.viewer import Viewer
from memstore.errors import FactNotFound, NotAllowed
from memstore.facts.activity import Provenance, fact_writers
from memstore.facts.paths import Scope, Shard, all_scopes, check_slug, locate, memory_root
from memstore.facts.records import StoredFact, stored_from_row
from memstore.facts.validity import expired_sql, review_due_sql
from memstore.index import index_sync
from memstore.index.sync import sync_bounded
from memstore.models import Bot, Fact, MemoryFile, ProjectMember
from memstore.rooms.access import WORKSPACE
from memstore.rooms.tickets import rooms_private
from memstore.store.changes import FOR_KEY

TABS = ("own", "people", "projects", "rooms", "private", "workspace")
PAGE_SIZE = 50
COUNT_CAP = 1000  # counting stops here: "1,000+" costs a fraction of an exact count

# What a row shows; never the tsvector (the widest column) or the raw line.
_ROW_FIELDS = (
    "fact_id",
    "day",
    "text",
    "tier",
    "rank",
    "visibility",
    "meta",
    "scope_key",
    "shard_bot",
)
# `importance=` (0..1, as written in the line) by level: high >= 0.7, low < 0.3.
IMPORTANCE_LEVELS = {
    "high": r"^(0*\.[7-9][0-9]*|0*1(\.0*)?)$",
    "low": r"^0*(\.[0-2][0-9]*)?$",
}
_CURSOR_RE = re.compile(r"(\d{4}-\d{2}-\d{2})_(\d{1,18})")
_WORD_RE = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Tab:
    """One tab of a bot's page: the scopes it shows and, for shared scopes, whose shard."""

    name: str
    scopes: tuple[Scope, ...]
    shard_bot: str | None  # None: every shard (project memory is read merged by its members)
    facts: int = 0

    def q(self) -> Q:
        """The index filter for this tab's facts."""
        condition = Q(scope_key__in=[str(s) for s in self.scopes])
        return condition & Q(shard_bot=self.shard_bot) if self.shard_bot else condition


@dataclass(frozen=True, slots=True)
class FactQuery:
    """What the person asked the bot page for (validated by the console's form)."""

    tab: str = "own"
    scope: str = ""  # one "kind:name" of the tab's scopes, or "" for all of them
    q: str = ""
    tier: str = ""
    type: str = ""
    month: str = ""  # YYYY-MM
    importance: str = ""  # one of IMPORTANCE_LEVELS
    dates: str = ""  # one of DATE_FILTERS: past `until`, due for review, or still true
    cursor: str = ""  # "YYYY-MM-DD_id" of the last row of the previous page
    exact: bool = False  # search the words as typed (no spelling correction)
    start: int = 1  # the position of this page's first fact in the list (for "51–100 of 123")
    limit: int = PAGE_SIZE


@dataclass(frozen=True, slots=True)
class FactRow:
    """A fact for the console: the stored fact and who wrote it how (from its metadata or, for
    older lines, from its shard's history), and the person who acted through the bot (`for=`)."""

    fact: StoredFact
    key: str  # unique on the page (one fact can sit in several files)
    by: str
    via: str
    private_conversation: bool = False  # in a private conversation's memory, not a legacy room
    acting: str = ""


@dataclass(frozen=True, slots=True)
class FactRows:
    """One page of rows; `next_cursor` continues to older facts ("" at the end)."""

    rows: list[FactRow]
    total: int  # at most COUNT_CAP
    capped: bool  # more than `total` matched
    next_cursor: str
    scopes: tuple[Scope, ...] = field(default_factory=tuple)


def bot_exists(bot: str) -> bool:
    """Whether a bot has memory on disk, is registered, or wrote into a shared scope
    (InvalidName for a bad slug)."""
    check_slug(bot)
    return (
        (memory_root() / Scope("bot", bot).rel).is_dir()
        or Bot.objects.filter(slug=bot).exists()
        or MemoryFile.objects.filter(shard_bot=bot).exists()
    )


def bot_tabs(*, bot: str, viewer: Viewer, counts: bool = True) -> list[Tab]:
    """The tabs of a bot's page with the scopes each shows, and their fact counts (one query)."""
    root = memory_root()
    written: dict[str, list[Scope]] = {"user": [], "project": [], "room": []}
    for scope in all_scopes(root):
        if scope.kind in written and (root / scope.rel / bot).is_dir():
            written[scope.kind].append(scope)
    joined = ProjectMember.objects.filter(bot__slug=bot).values_list("project", flat=True)
    projects = sorted(set(written["project"]) | {Scope("project", p) for p in joined})
    tabs = [
        Tab("own", (Scope("bot", bot),), None),
        Tab("people", tuple(filter(viewer.may_see, written["user"])), bot),
        Tab("projects", tuple(projects), None),
        Tab("rooms", tuple(s for s in written["room"] if not viewer.private_conversation(s)), bot),
        # A private conversation's memory (X-Room-Private) sits in room folders too; only staff
        # see it here (`Viewer.may_see`).
        Tab(
            "private",
            tuple(
                s for s in written["room"] if viewer.private_conversation(s) and viewer.may_see(s)
            ),
            bot,
        ),
        # What this bot (an app, or staff sharing its private memories) keeps for everyone.
        Tab("workspace", (WORKSPACE,), bot),
    ]
    if not counts:
        return tabs
    with sync_bounded():  # a drop-in of thousands of lines is indexed in the background
        index_sync(scopes=[s for tab in tabs for s in tab.scopes])
    condition = Q(pk__in=[])
    for tab in tabs:
        condition |= tab.q()
    grouped = (
        Fact.objects.filter(condition).values("scope_key", "shard_bot").annotate(n=Count("id"))
    )
    n = {(r["scope_key"], r["shard_bot"]): r["n"] for r in grouped}
    return [
        Tab(t.name, t.scopes, t.shard_bot, sum(c for k, c in n.items() if _holds(t, *k)))
        for t in tabs
    ]


def _holds(tab: Tab, scope_key: str, shard_bot: str) -> bool:
    return any(str(s) == scope_key for s in tab.scopes) and tab.shard_bot in (None, shard_bot)


# The bot page's filter on `until=` and `review=` (`memstore.facts.validity`).
DATE_FILTERS = ("expired", "review due", "current")


def _dated(rows, which: str):
    today = timezone.localdate().isoformat()
    table = Fact._meta.db_table
    if which == "review due":
        due = RawSQL(review_due_sql(table), [today], output_field=BooleanField())
        return rows.alias(due=due).filter(due=True)
    gone = RawSQL(expired_sql(table), [today], output_field=BooleanField())
    return rows.alias(gone=gone).filter(gone=which == "expired")


def fact_rows(
    *, bot: str, viewer: Viewer, query: FactQuery, tabs: list[Tab] | None = None
) -> FactRows:
    """A page of a bot's facts on one tab: synced, filtered, newest first (a search is
    `memstore.console.search.bot_search`).
    Pass the `tabs` already computed for this bot and person to save looking them up again."""
    tabs = tabs if tabs is not None else bot_tabs(bot=bot, viewer=viewer, counts=False)
    tab = next(t for t in tabs if t.name == query.tab)
    shown = tab.scopes
    if query.scope:
        shown = tuple(s for s in tab.scopes if str(s) == query.scope)
        if not shown:
            raise NotAllowed("That scope is not shown on this tab.")
    if not shown:
        return FactRows(rows=[], total=0, capped=False, next_cursor="", scopes=tab.scopes)
    with sync_bounded():
        index_sync(scopes=shown)
    rows = Fact.objects.filter(Tab(tab.name, shown, tab.shard_bot).q())
    if query.tier:
        rows = rows.filter(tier=query.tier)
    if query.type == "fact":
        rows = rows.filter(Q(meta__type="fact") | ~Q(meta__has_key="type"))
    elif query.type:
        rows = rows.filter(meta__type=query.type)
    if query.importance in IMPORTANCE_LEVELS:
        rows = rows.filter(meta__importance__regex=IMPORTANCE_LEVELS[query.importance])
    if query.dates in DATE_FILTERS:
        rows = _dated(rows, query.dates)
    if query.month:
        first = date.fromisoformat(query.month + "-01")
        rows = rows.filter(day__gte=first, day__lt=(first + timedelta(days=32)).replace(day=1))
    total = _count(rows)
    if match := _CURSOR_RE.fullmatch(query.cursor):
        day, pk = date.fromisoformat(match[1]), int(match[2])
        rows = rows.filter(Q(day__lt=day) | Q(day=day, id__lt=pk))
    found = (
        []
        if not total
        else list(
            rows.only(*_ROW_FIELDS)
            .annotate(file_path=F("file__path"))
            .order_by("-day", "-id")[: query.limit + 1]
        )
    )
    more = len(found) > query.limit
    found = found[: query.limit]
    return FactRows(
        rows=_rows(found, viewer.private_conversations),
        total=min(total, COUNT_CAP),
        capped=total > COUNT_CAP,
        next_cursor=f"{found[-1].day.isoformat()}_{found[-1].id}" if more else "",
        scopes=tab.scopes,
    )


def _count(rows) -> int:
    # Counts up to one past the cap, so a common word among 50,000 facts costs little.
    return rows[: COUNT_CAP + 1].count()


def _rows(found: list[Fact], private: Collection[str] | None = None) -> list[FactRow]:
    facts = [stored_from_row(record) for record in found]
    keys = [f"{fact.fact_id}-{record.pk}" for fact, record in zip(facts, found, strict=True)]
    return rows_of(facts, keys, private=private)


def rows_of(
    facts: list[StoredFact],
    keys: list[str] | None = None,
    *,
    private: Collection[str] | None = None,
) -> list[FactRow]:
    """Stored facts as rows, with who wrote each and how (from its metadata or, for older
    lines, from its shard's history, read once per shard), and whether each sits in a private
    conversation (`private`: those rooms, if the caller has them; else read when needed)."""
    root = memory_root()
    writers: dict[Shard, dict[str, Provenance]] = {}
    rooms = {fact.scope_name for fact in facts if fact.scope_kind == "room"}
    if private is None:
        private = rooms_private() if rooms else frozenset()  # a query only when rooms are shown
    rows = []
    for i, fact in enumerate(facts):
        by, via = fact.meta.get("by", ""), fact.meta.get("via", "")
        if not (by or via) and (location := locate(fact.file)) is not None:
            shard = location.shard
            if shard not in writers:
                writers[shard] = fact_writers(root=root, shard=shard)
            if written := writers[shard].get(fact.fact_id):
                by, via = written.by, written.via
        key = keys[i] if keys else f"{fact.fact_id}-{i}"
        in_private = fact.scope_kind == "room" and fact.scope_name in private
        rows.append(
            FactRow(
                fact=fact,
                key=key,
                by=by,
                via=via,
                private_conversation=in_private,
                acting=fact.meta.get(FOR_KEY, ""),
            )
        )
    return rows


def shard_of_file(viewer: Viewer, file: str) -> Shard:
    """The shard a memory file belongs to, if the person may see it (NotAllowed otherwise)."""
    location = locate(file or "")
    if location is None:
        raise NotAllowed("That is not a memory file.")
    if not viewer.may_see(location.shard.scope):
        raise NotAllowed("That is another person's user memory.")
    return location.shard


def console_fact_get(*, viewer: Viewer, file: str, fact_id: str) -> FactRow:
    """One fact of one file as a row (after syncing that scope); FactNotFound if it is gone."""
    shard = shard_of_file(viewer, file)
    index_sync(scopes=[shard.scope])
    found = list(
        Fact.objects.filter(file__path=file, fact_id=fact_id).annotate(file_path=F("file__path"))[
            :1
        ]
    )
    if not found:
        raise FactNotFound("That fact is no longer in this file; it may have been removed.")
    return _rows(found)[0]
