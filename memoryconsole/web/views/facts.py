"""A bot's memory page (tabs, search and filters as you type, paged newest first), clearing
the bot's own memory, and what the bot knew on a date."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone

from memoryconsole.web.forms import AsOfForm, FactQueryForm, FactRefsForm
from memoryconsole.web.presenters import common
from memoryconsole.web.presenters import facts as facts_views
from memoryconsole.web.presenters import forgotten as presenters_forgotten
from memoryconsole.web.presenters import search as presenters_search
from memoryconsole.web.presenters.common import GROUPINGS
from memoryconsole.web.views.common import (
    console_view,
    page_or_partial,
    url_with,
    viewer_of,
    wants_partial,
)
from memoryconsole.web.views.rows import fact_urls
from memstore.console.facts import DATE_FILTERS, IMPORTANCE_LEVELS, bot_tabs, fact_rows
from memstore.console.forgotten_recently import bot_forgotten
from memstore.console.search import bot_search
from memstore.console.versions import console_bot_as_of, console_history_start
from memstore.console.writes import (
    clear_preview,
    clear_undo_open,
    console_batch_undo,
    console_facts_forget,
    console_memory_clear,
)
from memstore.errors import FactNotFound
from memstore.facts.paths import Scope, Shard
from memstore.registry.bots import bot_keeps_private
from memstore.vocabulary import FACT_TYPES, TIERS

UNDO_KEY = "console_undo_clear"  # the session's note of the person's last clear


@console_view("GET", vary=True)
def bot_page(request, bot: str):
    """A bot's memory on one tab: search and filters as you type, paged newest first."""
    viewer = viewer_of(request)
    query = FactQueryForm(request.GET).query()
    tabs = None if wants_partial(request) else bot_tabs(bot=bot, viewer=viewer)
    context = {"bot": bot, "here": "memory", "urls": fact_urls(bot), "query": query}
    context["can_edit"] = viewer.may_edit(bot)
    context["can_share"] = viewer.staff
    context["bot_url"] = request.path
    context["back_url"] = request.get_full_path()
    if query.q.strip():
        context |= _search_context(request, bot, query, tabs, context["urls"])
    else:
        context |= _page_context(request, bot, query, tabs, context["urls"])
    group = FactQueryForm(request.GET).grouping()
    context |= {
        "group": group,
        "groupings": GROUPINGS,
        "groups": facts_views.fact_groups(context["rows"], group, bot=bot),
    }
    if tabs is not None:
        context |= {
            "tabs": facts_views.tab_views(tabs),
            "scopes": facts_views.scope_choices(
                context.pop("scopes_shown"), private=query.tab == "private"
            ),
            "tab_note": facts_views.tab_note(query.tab),
            "show_clear": query.tab == "own" and viewer.may_edit(bot),
            "forgotten": [
                presenters_forgotten.forgotten_view(f)
                for f in bot_forgotten(bot=bot, viewer=viewer)
            ],
            "undo_clear": _undo_offer(request, bot),
            "filters_open": bool(
                query.scope
                or query.tier
                or query.type
                or query.month
                or query.importance
                or context["group"]
            ),
            "tiers": TIERS,
            "types": FACT_TYPES,
            "importance_levels": IMPORTANCE_LEVELS,
            "date_filters": DATE_FILTERS,
        }
    return page_or_partial(request, "web/bot.html", "fact-list", context)


def _page_context(request, bot: str, query, tabs, urls: dict[str, str]) -> dict:
    page = fact_rows(bot=bot, viewer=viewer_of(request), query=query, tabs=tabs)
    today = timezone.localdate()
    # Only staff are offered "Share with workspace", so only they need to know (one query).
    private = viewer_of(request).staff and bot_keeps_private(slug=bot)
    return {
        "rows": [
            facts_views.fact_row_view(r, bot=bot, today=today, private_bot=private, urls=urls)
            for r in page.rows
        ],
        "summary": facts_views.fact_list_summary(page, query),
        "empty": facts_views.fact_list_empty(query),
        "next_url": (
            url_with(request, cursor=page.next_cursor, start=query.start + len(page.rows))
            if page.next_cursor
            else ""
        ),
        "newest_url": url_with(request, cursor=None, start=None) if query.cursor else "",
        "scopes_shown": page.scopes,
    }


def _search_context(request, bot: str, query, tabs, urls: dict[str, str]) -> dict:
    results = bot_search(bot=bot, viewer=viewer_of(request), query=query, tabs=tabs)
    marks = presenters_search.search_marks(results.searched, results.literal)
    today = timezone.localdate()
    search = presenters_search.search_summary(results, query.q)
    # "Why here?" only where the list is recall's order (no filter dropping hits, no grouping).
    whys = presenters_search.why_fits(query, FactQueryForm(request.GET).grouping())
    links = (
        presenters_search.bot_why_links(results.hits, results.searched, query.scope)
        if whys
        else [""] * len(results.hits)
    )
    rows = [
        facts_views.fact_row_view(h.row, bot=bot, today=today, marks=marks, why=link, urls=urls)
        for h, link in zip(results.hits, links, strict=True)
    ]
    return {
        "rows": rows,
        "summary": search.line,
        "search": search,
        "as_typed_url": url_with(request, exact=1) if results.corrected else "",
        "suggestion_url": url_with(request, q=results.suggestion, cursor=None)
        if results.suggestion
        else "",
        "empty": facts_views.fact_list_empty(query),
        "scopes_shown": [s for t in (tabs or []) for s in t.scopes],
    }


@console_view("GET", "POST", vary=True)
def clear_memory(request, bot: str):
    """GET: what clearing removes and what stays. POST: clear the bot's own memory."""
    viewer = viewer_of(request)
    if request.method == "POST":
        cleared = console_memory_clear(viewer=viewer, bot=bot)
        messages.success(request, facts_views.cleared_message(bot, cleared.removed))
        own = Scope("bot", bot).shard(bot)
        _offer_undo(request, bot, "clear", [own], cleared.since, cleared.until)
        return redirect("web:bot", bot=bot)
    preview = clear_preview(bot=bot, viewer=viewer)
    context = {
        "bot": bot,
        "here": "memory",
        "preview": preview,
        "stays": facts_views.clear_stays(preview),
        "can_edit": viewer.may_edit(bot),
    }
    return page_or_partial(request, "web/clear.html", "confirm", context)


@console_view("POST")
def undo_batch(request, bot: str):
    """Put back the whole batch the person's last clear or bulk delete on this page removed."""
    batch = request.session.get(UNDO_KEY) or {}
    if batch.get("bot") != bot:
        raise FactNotFound("There is nothing of yours to undo.")
    count = console_batch_undo(
        viewer=viewer_of(request),
        shards=[Shard.parse(key) for key in batch["shards"]],
        since=batch["since"],
        until=batch["until"],
    )
    del request.session[UNDO_KEY]
    messages.success(request, facts_views.undone_message(bot, count))
    return redirect("web:bot", bot=bot)


@console_view("POST")
def delete_facts(request, bot: str):
    """Remove the facts ticked on the page; one Undo puts them all back."""
    refs = FactRefsForm(request.POST).refs()
    page = reverse("web:bot", args=[bot])
    back = request.POST.get("back", "")
    back = back if back.startswith(page) else page  # only back to this bot's page
    if not refs:
        messages.info(request, "Tick the facts to delete first.")
        return redirect(back)
    removed = console_facts_forget(viewer=viewer_of(request), refs=refs)
    _offer_undo(request, bot, "delete", removed.shards, removed.since, removed.until)
    messages.success(request, facts_views.deleted_message(removed.count))
    return redirect(back)


def _offer_undo(request, bot: str, what: str, shards, since: str, until: str) -> None:
    request.session[UNDO_KEY] = {
        "bot": bot,
        "what": what,
        "shards": [s.key for s in shards],
        "since": since,
        "until": until,
    }


def _undo_offer(request, bot: str) -> str:
    """ "clear" or "delete" when the person's last batch on this bot can still be undone."""
    batch = request.session.get(UNDO_KEY) or {}
    if batch.get("bot") == bot and clear_undo_open(batch.get("since", "")):
        return batch.get("what", "clear")
    return ""


@console_view("GET")
def as_of_page(request, bot: str):
    """What this bot knew on a date (a date picker; replayed from history)."""
    form = AsOfForm(request.GET or {"day": timezone.localdate().isoformat()})
    day = form.cleaned_data["day"] if form.is_valid() else None
    viewer = viewer_of(request)
    facts = console_bot_as_of(viewer=viewer, bot=bot, day=day) if day else []
    start = console_history_start(viewer=viewer, bot=bot)
    context = {
        "bot": bot,
        "here": "as-of",
        "form": form,
        "day": day,
        "history_start": start,
        "before_history": bool(day and start and day < start.date()),
        "rows": [(f, common.scope_label(f.scope)) for f in facts],
    }
    return render(request, "web/as_of.html", context)
