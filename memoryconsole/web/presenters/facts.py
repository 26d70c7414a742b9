"""How a bot's fact list shows: a fact's row, the list's summary line, tabs, the clear and erase
confirmations and their messages, a fact's versions.

Pure: no queries, no file I/O (as every presenter)."""

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from urllib.parse import quote

from memoryconsole.web.presenters.common import (
    GROUPINGS,
    NEW_DAYS,
    PRIVATE_READERS,
    SHORT_CHARS,
    TAB_LABELS,
    origin,
    plural,
    scope_label,
)
from memoryconsole.web.presenters.history import stamp_time
from memstore.console.facts import FactQuery, FactRow, FactRows, Tab
from memstore.console.writes import ClearPreview, Erased
from memstore.facts.paths import Scope
from memstore.facts.validity import (
    checked_of,
    is_expired,
    is_review_due,
    mark_of,
    review_of,
    until_of,
)
from memstore.rules.protected import fact_requested
from memstore.store.sharing import Sharing, is_private


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
    pinned: bool = False  # saved on request, not captured automatically
    parts: tuple[tuple[str, bool], ...] = ()  # the text in pieces, True where a search matched
    where: str = ""  # in a search over several bots: which bot's memory
    shareable: bool = False  # private: staff may share it with the workspace
    shared: bool = False  # in workspace memory: shared with everyone, never private again
    expired: bool = False  # its `until` day has passed
    review_due: bool = False  # its `review` day has come
    why: str = ""  # where "Why here?" explains its place in a search ("": not offered)
    # Worked out once here, not by each of the row template's several uses of them (a search
    # as you type renders 50 rows on every keystroke):
    short: str = ""  # the text cut to fit a button's accessible name ("Delete 'Prefers dark…'")
    day: str = ""  # its day, YYYY-MM-DD
    ref: str = ""  # the query naming it for the edit, versions, erase and share links
    # Those links (the page's `urls` and `ref`) and the bulk checkbox's value, joined once here
    # rather than by the template's eleven uses of them:
    edit_url: str = ""
    versions_url: str = ""
    seen_url: str = ""  # which replies it was behind (memory sources)
    erase_url: str = ""
    share_url: str = ""
    pick: str = ""  # "<file>|<fact id>", the value of its checkbox in the bulk delete form
    importance: str = ""  # its `importance` as written, or "" (a missing key costs a template
    # lookup four exceptions)

    @property
    def until(self) -> str:
        """Its `until` date as written (YYYY-MM-DD), or ""."""
        return until_of(self.row.fact.meta) or ""

    @property
    def review(self) -> str:
        """Its `review` date as written, or ""."""
        return review_of(self.row.fact.meta) or ""

    @property
    def checked(self) -> str:
        """The day it was last verified (a person confirmed it, a bot found it useful), or ""."""
        return checked_of(self.row.fact.meta) or ""

    @property
    def mark(self) -> str:
        """Its feedback mark (outdated, wrong, do-not-use), or ""."""
        return mark_of(self.row.fact.meta) or ""

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
    def fact(self):
        """The stored fact (text, day, tier, file, identity)."""
        return self.row.fact

    @property
    def key(self) -> str:
        """Unique on the page (one fact can sit in several files)."""
        return self.row.key


def fact_row_view(
    row: FactRow,
    *,
    bot: str,
    today: date,
    marks=None,
    where: str = "",
    private_bot: bool = False,
    why: str = "",
    urls: dict[str, str] | None = None,
) -> FactRowView:
    """How one fact row looks on this bot's page today (search matches marked; `private_bot`:
    the page's bot keeps a private memory, so its own facts are private; `urls`: the bot's
    fact links, `views.rows.fact_urls`, which the bot page's row template needs)."""
    fact = row.fact
    scope = Scope.parse(fact.scope)
    ref = f"file={quote(fact.file, safe='/')}&id={fact.fact_id}"
    urls = urls or {}
    body = fact.body  # the text without its tag, parsed once
    return FactRowView(
        row=row,
        scope_label=scope_label(fact.scope, private=row.private_conversation),
        written_by=fact.shard_bot if fact.shard_bot != bot else "",
        type=fact.meta.get("type", ""),
        origin=origin(row.by, row.via, row.acting) or "origin not recorded",
        is_new=fact.day >= today - timedelta(days=NEW_DAYS),
        hidden=fact.visibility == "hidden",
        pinned=fact_requested(fact.meta, row.via),
        parts=marks.split(body) if marks else ((body, False),),
        where=where,
        expired=is_expired(fact.meta, today),
        review_due=is_review_due(fact.meta, today),
        shareable=is_private(
            scope, visibility=fact.visibility, private_bot=private_bot and scope.name == bot
        ),
        shared=scope.kind == "server",
        why=why,
        short=body if len(body) <= SHORT_CHARS else body[: SHORT_CHARS - 1].rstrip() + "…",
        day=fact.day.isoformat(),
        ref=ref,
        edit_url=f"{urls.get('edit', '')}?{ref}",
        versions_url=f"{urls.get('versions', '')}?{ref}",
        seen_url=f"{urls.get('seen', '')}?scope={quote(fact.scope)}&id={fact.fact_id}",
        erase_url=f"{urls.get('erase', '')}?{ref}",
        share_url=f"{urls.get('share', '')}?{ref}",
        pick=f"{fact.file}|{fact.fact_id}",
        importance=fact.meta.get("importance", ""),
    )


@dataclass(frozen=True, slots=True)
class FactGroup:
    """The facts of one conversation, bot or type, on a bot's page grouped."""

    label: str
    rows: list[FactRowView]


def fact_groups(rows: list[FactRowView], group: str, *, bot: str) -> list[FactGroup]:
    """The page's rows grouped by the room a fact was learned in, the bot that wrote it, or its
    type, the groups in order of their first row; [] for no grouping."""
    if group not in GROUPINGS:
        return []
    found: dict[str, list[FactRowView]] = {}
    for row in rows:
        if group == "room":
            key = f"Room {row.src_room}" if row.src else "No conversation recorded"
        elif group == "bot":
            key = row.written_by or bot
        else:
            key = row.type or "fact"
        found.setdefault(key, []).append(row)
    return [FactGroup(label=label, rows=members) for label, members in found.items()]


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
        f"{erased.copies} {plural(erased.copies, 'copy', 'copies')} deleted, "
        f"{erased.history} history {plural(erased.history, 'line', 'lines')} tombstoned, "
        f"{erased.records} stored {plural(erased.records, 'record', 'records')} redacted."
    )


def scope_choices(scopes, *, private: bool = False) -> list[tuple[str, str]]:
    """(value, label) of a tab's scopes for its scope filter; none when there is nothing to pick
    (`private`: the tab of private conversations)."""
    if len(scopes) <= 1:
        return []
    return [(str(s), scope_label(str(s), private=private)) for s in scopes]


def fact_list_summary(page: FactRows, query: FactQuery) -> str:
    """The line above a page of facts: how many, and which of them this page shows ("51–100 of
    123 facts"). A search's line is `search.search_summary`."""
    total = f"{page.total}{'+' if page.capped else ''}"
    facts = plural(page.total, "fact", "facts")
    line = f"{total} {facts}"
    if page.next_cursor or query.cursor:
        first = max(1, query.start)
        line = f"{first}–{first + len(page.rows) - 1} of {total} {facts}"
    return line


def fact_list_empty(query: FactQuery) -> str:
    """What an empty page of facts says: filters found nothing, or there is nothing yet."""
    if query.q or query.tier or query.type or query.month or query.importance:
        return "No facts match. Try fewer words or other filters."
    return "Nothing here yet."


@dataclass(frozen=True, slots=True)
class TabView:
    """A tab of a bot's page: its name (the `tab` parameter), label and fact count."""

    name: str
    label: str
    facts: int


def tab_views(tabs: list[Tab]) -> list[TabView]:
    """The bot page's tabs as links; *Private conversations* only when the person may see one
    (staff, and the bot wrote in one)."""
    return [
        TabView(t.name, TAB_LABELS[t.name], t.facts)
        for t in tabs
        if t.name != "private" or t.scopes
    ]


def tab_note(tab: str) -> str:
    """What a tab's memory is, said under the tabs where it is not obvious ("" elsewhere)."""
    if tab == "private":
        return (
            "What bots saved in private conversations (a group room called private, "
            f"X-Room-Private): {PRIVATE_READERS}. Not legacy room memory."
        )
    if tab == "rooms":
        return "Legacy room memory: read-only, read in its own group room by the bots that wrote in it."
    return ""


def clear_stays(preview: ClearPreview) -> list[tuple[str, str, str]]:
    """The shared memory clearing leaves alone, as (lead, count shown in bold, words) pieces:
    "1 fact about people, 2 in its projects, and 1 in legacy rooms"."""
    facts = plural(preview.people, "fact", "facts")
    pieces = [("", str(preview.people), f" {facts} about people")]
    if preview.projects:
        pieces.append((", ", str(preview.projects), " in its projects"))
    else:
        pieces.append((" and its project memory", "", ""))
    if preview.rooms:
        pieces.append((", and ", str(preview.rooms), " in legacy rooms"))
    if preview.private:
        pieces.append((", and ", str(preview.private), " in private conversations"))
    if preview.workspace:
        pieces.append((", and ", str(preview.workspace), " shared with the workspace"))
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
    facts = plural(count, "fact", "facts")
    return f"Put back {count} {facts} in {bot}'s memory, each where it was, by its author."


def deleted_message(count: int) -> str:
    """What the bot page says after a bulk delete."""
    return f"Deleted {count} {plural(count, 'fact', 'facts')}. Undo puts {plural(count, 'it', 'them')} back."


def added_message(fact) -> str:
    """What the bot page says after a fact was added."""
    return f"Saved to {scope_label(fact.scope)}: {fact.body}"


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
        VersionRow(text=v.text, at=v.at, when=stamp_time(v.at), origin=origin(v.by, v.via))
        for v in versions
    ]


def share_readers_label(plan: Sharing) -> str:
    """Who will read a memory once shared, said for the confirmation."""
    bots = plan.readers
    named = ", ".join(bots[:8]) + (f" and {len(bots) - 8} more" if len(bots) > 8 else "")
    return (
        f"every person in this workspace and every bot ({len(bots)} {plural(len(bots), 'bot', 'bots')}"
        + (f": {named}" if bots else "")
        + "), in every conversation"
    )
