"""How the console shows things: labels, wording and display decisions, in one place.

`memstore.console` answers what there is (facts, changes, files, failures); this module decides
how a person sees it (a scope's label, "new", who wrote a fact and how, a page's summary line),
so templates only display what they are given. Pure: no queries, no file I/O.
"""

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from memstore.console.facts import TABS, FactQuery, FactRow, FactRows, Tab
from memstore.console.files import FileInfo, FileView
from memstore.console.overview import Problems
from memstore.console.writes import ClearPreview, Erased, shard_key
from memstore.facts.activity import ShardChange
from memstore.facts.markdown import MAX_TEXT_CHARS, parse_line
from memstore.facts.paths import Shard
from memstore.learning.activity import LABELS
from memstore.prompt.section import Block, PromptSection, Slice

NEW_DAYS = 7  # a fact this many days old or newer is marked "new"
SHORT_CHARS = 40  # a fact's text in a button's accessible name
TAB_LABELS = dict(
    zip(TABS, ("Own memory", "About people", "Projects", "Legacy rooms"), strict=True)
)
_ACTIONS = {"add": "added", "remove": "removed", "edit": "edited", "restore": "restored"}
WARN_KINDS = ("failed", "refused")  # learning events whose badge is a warning
ERROR_TITLES = {"conflict": "Changed meanwhile", "unreadable_file": "A memory file is unreadable"}
STATUS_TITLES = {403: "Not allowed", 404: "Not found"}


def scope_label(scope_key: str) -> str:
    """How a scope is named for people: "own", "about sam", "project launch", "room general"."""
    kind, _, name = scope_key.partition(":")
    labels = {"bot": "own", "user": f"about {name}", "project": f"project {name}"}
    return labels.get(kind, f"room {name}")


def error_title(code: str, status: int) -> str:
    """The heading of the console's error page for an error's code and status."""
    return ERROR_TITLES.get(code) or STATUS_TITLES.get(status, "Not accepted")


def origin(by: str, via: str) -> str:
    """Who wrote something and how: "by ann via console" ("" when neither is known)."""
    return " ".join([f"by {by}"] * bool(by) + [f"via {via}"] * bool(via))


@dataclass(frozen=True, slots=True)
class FactRowView:
    """A fact row as the bot page shows it."""

    row: FactRow
    scope_label: str
    written_by: str  # the bot whose shard holds it, when that is not the page's bot
    type: str  # the fact's type badge ("" for a plain fact with no type written)
    origin: str
    is_new: bool
    hidden: bool
    parts: tuple[tuple[str, bool], ...] = ()  # the text in pieces, True where a search matched
    where: str = ""  # in a search over several bots: which bot's memory

    @property
    def src(self) -> str:
        """Where a learned fact came from (`src=room:<id>/msg:<id>`), or ""."""
        src = self.row.fact.meta.get("src", "")
        return src if src.startswith("room:") and "/msg:" in src else ""

    @property
    def src_room(self) -> str:
        """The room of `src`."""
        return self.src.removeprefix("room:").partition("/msg:")[0]

    @property
    def short(self) -> str:
        """The fact's text cut to fit a button's accessible name ("Delete 'Prefers dark…'")."""
        body = self.row.fact.body
        return body if len(body) <= SHORT_CHARS else body[: SHORT_CHARS - 1].rstrip() + "…"

    @property
    def fact(self):
        """The stored fact (text, day, tier, file, identity)."""
        return self.row.fact

    @property
    def key(self) -> str:
        """Unique on the page (one fact can sit in several files)."""
        return self.row.key


def fact_row_view(
    row: FactRow, *, bot: str, today: date, marks=None, where: str = ""
) -> FactRowView:
    """How one fact row looks on this bot's page today (search matches marked)."""
    fact = row.fact
    return FactRowView(
        row=row,
        scope_label=scope_label(fact.scope),
        written_by=fact.shard_bot if fact.shard_bot != bot else "",
        type=fact.meta.get("type", ""),
        origin=origin(row.by, row.via) or "origin not recorded",
        is_new=fact.day >= today - timedelta(days=NEW_DAYS),
        hidden=fact.visibility == "hidden",
        parts=marks.split(fact.body) if marks else ((fact.body, False),),
        where=where,
    )


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def erase_reach_label(reach: str, bot: str) -> str:
    """How far "Delete and erase" reaches, said for the person (`console.writes.erase_reach`)."""
    return {
        "everything": "everywhere in this workspace",
        "person": "every bot’s memory about you",
    }.get(reach, f"{bot}’s memory")


def erased_summary(erased: Erased) -> str:
    """What the row says after "Delete and erase": what went, from where, what was cleaned."""
    return (
        f"Erased “{erased.text}” from {erase_reach_label(erased.reach, erased.bot)}: "
        f"{erased.copies} {_plural(erased.copies, 'copy', 'copies')} deleted, "
        f"{erased.history} history {_plural(erased.history, 'line', 'lines')} tombstoned, "
        f"{erased.records} stored {_plural(erased.records, 'record', 'records')} redacted."
    )


def scope_choices(scopes) -> list[tuple[str, str]]:
    """(value, label) of a tab's scopes for its scope filter; none when there is nothing to pick."""
    return [(str(s), scope_label(str(s))) for s in scopes] if len(scopes) > 1 else []


def fact_list_summary(page: FactRows, query: FactQuery) -> str:
    """The line above a page of facts: how many, what was searched, which of them this page
    shows ("51–100 of 123 facts")."""
    total = f"{page.total}{'+' if page.capped else ''}"
    facts = _plural(page.total, "fact", "facts")
    line = f"{total} {facts}"
    if page.next_cursor or query.cursor:
        first = max(1, query.start)
        line = f"{first}–{first + len(page.rows) - 1} of {total} {facts}"
    if query.q:
        line += f" {_plural(page.total, 'matches', 'match')} “{query.q}”"
        line += " as text" if page.searched == "text" else ""
    return line


def fact_list_empty(query: FactQuery) -> str:
    """What an empty page of facts says: filters found nothing, or there is nothing yet."""
    if query.q or query.tier or query.type or query.month or query.importance:
        return "No facts match. Try fewer words or other filters."
    return "Nothing here yet."


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """A recorded change as the console shows it."""

    item: ShardChange
    action: str  # added | removed | edited
    scope_label: str
    text: str  # the fact's text on the line (no date, no metadata)
    old_text: str  # for an edit: the text before
    origin: str
    restorable: bool
    when: datetime | None


def history_rows(items: list[ShardChange]) -> list[HistoryRow]:
    """Display rows for recorded changes."""
    rows = []
    for item in items:
        change = item.change
        new, old = parse_line(change.line), parse_line(change.old_line)
        rows.append(
            HistoryRow(
                item=item,
                action=_ACTIONS.get(change.op, change.op),
                scope_label=scope_label(str(item.shard.scope)),
                text=new.text if new else change.line,
                old_text=old.text if old else "",
                origin=origin(change.by, change.via),
                restorable=change.op == "remove" and new is not None,
                when=_when(change.at),
            )
        )
    return rows


def _when(stamp: str) -> datetime | None:
    try:
        return datetime.fromisoformat(stamp)
    except ValueError:
        return None


def shard_choices(shards: list[Shard]) -> list[tuple[str, str]]:
    """(value, label) of each shard for the history page's picker."""
    return [(shard_key(s), scope_label(str(s.scope))) for s in shards]


def file_rows(files: list[FileInfo]) -> list[tuple[FileInfo, str]]:
    """Each file of a bot with its scope's label."""
    return [(f, scope_label(f.scope_key)) for f in files]


@dataclass(frozen=True, slots=True)
class FileNotes:
    """What the file view says about a file beyond its lines."""

    scope_label: str
    skipped: str  # "2 lines look like a fact but are not read as one", or ""
    too_long: str  # "1 fact is over the 500-character limit for a save", or ""


def file_notes(view: FileView) -> FileNotes:
    """The sentences above a file's lines."""
    skipped = too_long = ""
    if n := view.skipped:
        skipped = (
            f"{n} {_plural(n, 'line looks', 'lines look')} like a fact but "
            f"{_plural(n, 'is', 'are')} not read as one"
        )
    if n := view.too_long:
        too_long = (
            f"{n} {_plural(n, 'fact is', 'facts are')} over the {MAX_TEXT_CHARS}-character "
            "limit for a save: indexed whole, but an edit must shorten it"
        )
    return FileNotes(scope_label(view.scope_key), skipped, too_long)


def nothing_failed(problems: Problems) -> bool:
    """Whether the home page's "What failed" has nothing to list."""
    return not (problems.refused or problems.unreadable or problems.learning or problems.shards)


def learning_kinds(kinds: list[tuple[str, int]]) -> list[tuple[str, str, int]]:
    """(kind, label, how many) for the learning page's tabs."""
    return [(k, LABELS.get(k, k), n) for k, n in kinds]


@dataclass(frozen=True, slots=True)
class TabView:
    """A tab of a bot's page: its name (the `tab` parameter), label and fact count."""

    name: str
    label: str
    facts: int


def tab_views(tabs: list[Tab]) -> list[TabView]:
    """The bot page's tabs as links."""
    return [TabView(t.name, TAB_LABELS[t.name], t.facts) for t in tabs]


def clear_stays(preview: ClearPreview) -> list[tuple[str, str, str]]:
    """The shared memory clearing leaves alone, as (lead, count shown in bold, words) pieces:
    "1 fact about people, 2 in its projects, and 1 in legacy rooms"."""
    facts = _plural(preview.people, "fact", "facts")
    pieces = [("", str(preview.people), f" {facts} about people")]
    if preview.projects:
        pieces.append((", ", str(preview.projects), " in its projects"))
    else:
        pieces.append((" and its project memory", "", ""))
    if preview.rooms:
        pieces.append((", and ", str(preview.rooms), " in legacy rooms"))
    return pieces


def cleared_message(bot: str, removed: int) -> str:
    """What the bot page says after its own memory was cleared."""
    return (
        f"Removed {removed} facts from {bot}'s own memory. User and project memory stayed. "
        "Undo clear puts them all back for the next 30 minutes; each removal is also in the "
        "history, where it can be restored."
    )


def undone_message(bot: str, count: int) -> str:
    """What the bot page says after a clear or a bulk delete was undone."""
    facts = _plural(count, "fact", "facts")
    return f"Put back {count} {facts} in {bot}'s memory, each where it was, by its author."


def deleted_message(count: int) -> str:
    """What the bot page says after a bulk delete."""
    return f"Deleted {count} {_plural(count, 'fact', 'facts')}. Undo puts {_plural(count, 'it', 'them')} back."


@dataclass(frozen=True, slots=True)
class SliceView:
    """One budgeted part of a prompt block as the preview shows it."""

    label: str
    slice: Slice
    left_out: str  # "Left out: 3 past the character budget, 2 past the 30-fact cap." or ""


@dataclass(frozen=True, slots=True)
class BlockView:
    """One block of the prompt preview with its parts."""

    block: Block
    slices: list[SliceView]
    hidden: str = ""  # "1 hidden fact left out: hidden facts never go into a prompt." or ""


def prompt_blocks(
    section: PromptSection | None, hidden: dict[str, int] | None = None
) -> list[BlockView]:
    """The preview's blocks, each with its profile and "recently" parts, what they left out,
    and the hidden facts of its scope that were left out too."""
    if section is None:
        return []
    views = []
    for b in section.blocks:
        n = (hidden or {}).get(b.scope, 0)
        note = (
            f"{n} hidden {_plural(n, 'fact', 'facts')} left out: hidden facts never go into a prompt."
            if n
            else ""
        )
        slices = [_slice_view("Profile", b.profile), _slice_view("Recently", b.recent)]
        views.append(BlockView(b, slices, note))
    return views


def _slice_view(label: str, part: Slice) -> SliceView:
    reasons = []
    if part.past_chars:
        reasons.append(f"{part.past_chars} past the character budget")
    if part.past_count:
        reasons.append(f"{part.past_count} past the {part.budget.facts}-fact cap")
    left_out = f"Left out: {', '.join(reasons)}." if reasons else ""
    return SliceView(label, part, left_out)


def added_message(fact) -> str:
    """What the bot page says after a fact was added."""
    return f"Saved to {scope_label(fact.scope)}: {fact.body}"


# --- issue 11: fact versions, facts as of a date, the prompt's notes and freshness ------------


@dataclass(frozen=True, slots=True)
class VersionRow:
    """An earlier text of a fact, as its versions page lists it."""

    text: str
    at: str  # the version's id (the time of the edit that replaced it)
    when: datetime | None
    origin: str  # who replaced it, and how


def version_rows(versions: list) -> list[VersionRow]:
    """Display rows for a fact's versions (newest first)."""
    return [
        VersionRow(text=v.text, at=v.at, when=_when(v.at), origin=origin(v.by, v.via))
        for v in versions
    ]


def prompt_freshness(stale: bool, memory: str) -> str:
    """The preview's warning when the section was not built from the files as they are now."""
    if memory == "unavailable":
        return "Memory could not be read within the time budget: the bot would get no memory."
    if stale:
        return (
            "The files could not be synced within the time budget (another writer held the "
            "lock, or the disk was slow): this is the index as it stood. Reload to try again."
        )
    return ""
