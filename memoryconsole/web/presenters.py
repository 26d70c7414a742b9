"""How the console shows things: labels, wording and display decisions, in one place.

`memstore.console` answers what there is (facts, changes, files, failures); this module decides
how a person sees it (a scope's label, "new", who wrote a fact and how, a page's summary line),
so templates only display what they are given. Pure: no queries, no file I/O.
"""

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from memstore.activity import ShardChange
from memstore.console.aboutme import AboutFact
from memstore.console.facts import TABS, FactQuery, FactRow, FactRows, Tab
from memstore.console.files import FileInfo, FileView
from memstore.console.overview import Problems
from memstore.console.reach import Reach
from memstore.console.writes import ClearPreview, shard_key
from memstore.controls import ControlChange
from memstore.learning.activity import LABELS
from memstore.markdown import MAX_TEXT_CHARS, parse_line
from memstore.paging import Page
from memstore.paths import Shard
from memstore.prompt import Block, PromptSection, Slice

NEW_DAYS = 7  # a fact this many days old or newer is marked "new"
TAB_LABELS = dict(
    zip(TABS, ("Own memory", "About people", "Projects", "Legacy rooms"), strict=True)
)
_ACTIONS = {"add": "added", "remove": "removed", "edit": "edited"}
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

    @property
    def fact(self):
        """The stored fact (text, day, tier, file, identity)."""
        return self.row.fact

    @property
    def key(self) -> str:
        """Unique on the page (one fact can sit in several files)."""
        return self.row.key


def fact_row_view(row: FactRow, *, bot: str, today: date) -> FactRowView:
    """How one fact row looks on this bot's page today."""
    fact = row.fact
    return FactRowView(
        row=row,
        scope_label=scope_label(fact.scope),
        written_by=fact.shard_bot if fact.shard_bot != bot else "",
        type=fact.meta.get("type", ""),
        origin=origin(row.by, row.via) or "origin not recorded",
        is_new=fact.day >= today - timedelta(days=NEW_DAYS),
        hidden=fact.visibility == "hidden",
    )


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


def scope_choices(scopes) -> list[tuple[str, str]]:
    """(value, label) of a tab's scopes for its scope filter; none when there is nothing to pick."""
    return [(str(s), scope_label(str(s))) for s in scopes] if len(scopes) > 1 else []


def fact_list_summary(page: FactRows, query: FactQuery) -> str:
    """The line above a page of facts: how many, what was searched, which page."""
    total = f"{page.total}{'+' if page.capped else ''}"
    line = f"{total} {_plural(page.total, 'fact', 'facts')}"
    if query.q:
        line += f" {_plural(page.total, 'matches', 'match')} “{query.q}”"
        line += " as text" if page.searched == "text" else ""
    return line + (" · older page" if query.cursor else "")


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
        "Each removal is in the history, where it can be restored."
    )


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


def prompt_blocks(section: PromptSection | None) -> list[BlockView]:
    """The preview's blocks, each with its profile and "recently" parts and what they left out."""
    if section is None:
        return []
    return [
        BlockView(b, [_slice_view("Profile", b.profile), _slice_view("Recently", b.recent)])
        for b in section.blocks
    ]


def _slice_view(label: str, part: Slice) -> SliceView:
    reasons = []
    if part.past_chars:
        reasons.append(f"{part.past_chars} past the character budget")
    if part.past_count:
        reasons.append(f"{part.past_count} past the {part.budget.facts}-fact cap")
    left_out = f"Left out: {', '.join(reasons)}." if reasons else ""
    return SliceView(label, part, left_out)


# --- About me ------------------------------------------------------------------------------

REACH_KIND_LABELS = {"direct": "Direct with you", "group": "Group rooms", "routine": "Routines"}
REACH_REASONS = {
    "hidden": "hidden: never put in a prompt",
    "searchable": "searchable only: recall finds it, prompts don't",
    "budget": "past the prompt's budget: recall still finds it",
    "room kind": "not this room kind: what bots know about you is read only in direct rooms",
}
_CONTROL_ACTIONS = {
    "pause": "paused memory",
    "resume": "resumed memory",
    "exclude": "excluded the topic",
    "include": "allowed the topic again",
}


@dataclass(frozen=True, slots=True)
class AboutFactView:
    """A fact about the person as the About me page shows it."""

    item: AboutFact
    bot: str
    room: str  # "from room dm-ann", or "room not recorded"
    origin: str
    is_new: bool
    hidden: bool

    @property
    def fact(self):
        """The stored fact."""
        return self.item.fact


def about_fact_view(item: AboutFact, *, today: date) -> AboutFactView:
    """How one fact about the person looks today."""
    fact = item.fact
    return AboutFactView(
        item=item,
        bot=item.bot,
        room=f"from room {item.room}" if item.room else "room not recorded",
        origin=origin(item.by, item.via) or "origin not recorded",
        is_new=fact.day >= today - timedelta(days=NEW_DAYS),
        hidden=fact.visibility == "hidden",
    )


def about_summary(page: Page, q: str) -> str:
    """ "12 facts about you" / "2 facts match “lisbon”"."""
    n = page.total or 0
    facts = _plural(n, "fact", "facts")
    return f"{n} {facts} match “{q}”" if q else f"{n} {facts} known by the bots"


def control_change_text(change: ControlChange) -> str:
    """One audit line: "2026-11-30 22:10 UTC · ann paused memory (console)"."""
    when = change.at[:16].replace("T", " ")
    what = _CONTROL_ACTIONS.get(change.action, change.action)
    topic = f" “{change.topic}”" if change.topic else ""
    via = f" ({change.via})" if change.via else ""
    return f"{when} UTC · {change.by or 'someone'} {what}{topic}{via}"


@dataclass(frozen=True, slots=True)
class ReachView:
    """One bot in one room kind, as the page lists it."""

    bot: str
    kind: str
    label: str
    shown: list[str]
    left: list[tuple[str, str]]  # (fact text, why it stays out)
    note: str  # the person's "About you" note as the prompt holds it
    note_left: str  # why their note is not in this prompt ("" if it is, or none was written)


def reach_views(reaches: list[Reach]) -> list[ReachView]:
    """Each bot and room kind with its shown fact texts and the rest with their reasons."""
    return [
        ReachView(
            bot=r.bot,
            kind=r.kind,
            label=REACH_KIND_LABELS.get(r.kind, r.kind),
            shown=[f.body for f in r.shown],
            left=[(x.fact.body, REACH_REASONS[x.reason]) for x in r.left],
            note=r.note,
            note_left=REACH_REASONS[r.note_left] if r.note_left else "",
        )
        for r in reaches
    ]


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
