"""A bot's memory page (tabs, search and filters as you type, paged newest first), clearing
the bot's own memory, and what the bot knew on a date."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils import timezone

from memoryconsole.web import presenters
from memoryconsole.web.forms import AsOfForm, FactQueryForm
from memoryconsole.web.views.common import (
    console_view,
    page_or_partial,
    url_with,
    viewer_of,
    wants_partial,
)
from memoryconsole.web.views.rows import fact_urls
from memstore.console.facts import IMPORTANCE_LEVELS, bot_tabs, fact_rows
from memstore.console.versions import console_bot_as_of
from memstore.console.writes import clear_preview, console_memory_clear
from memstore.vocabulary import FACT_TYPES, TIERS


@console_view("GET", vary=True)
def bot_page(request, bot: str):
    """A bot's memory on one tab: search and filters as you type, paged newest first."""
    viewer = viewer_of(request)
    query = FactQueryForm(request.GET).query()
    tabs = None if wants_partial(request) else bot_tabs(bot=bot, viewer=viewer)
    page = fact_rows(bot=bot, viewer=viewer, query=query, tabs=tabs)
    today = timezone.localdate()
    context = {
        "bot": bot,
        "here": "memory",
        "urls": fact_urls(bot),
        "query": query,
        "rows": [presenters.fact_row_view(r, bot=bot, today=today) for r in page.rows],
        "summary": presenters.fact_list_summary(page, query),
        "empty": presenters.fact_list_empty(query),
        "bot_url": request.path,
        "next_url": url_with(request, cursor=page.next_cursor) if page.next_cursor else "",
        "newest_url": url_with(request, cursor=None) if query.cursor else "",
    }
    if tabs is not None:
        context |= {
            "tabs": presenters.tab_views(tabs),
            "scopes": presenters.scope_choices(page.scopes),
            "show_clear": query.tab == "own",
            "tiers": TIERS,
            "types": FACT_TYPES,
            "importance_levels": IMPORTANCE_LEVELS,
        }
    return page_or_partial(request, "web/bot.html", "fact-list", context)


@console_view("GET", "POST", vary=True)
def clear_memory(request, bot: str):
    """GET: what clearing removes and what stays. POST: clear the bot's own memory."""
    viewer = viewer_of(request)
    if request.method == "POST":
        removed = console_memory_clear(viewer=viewer, bot=bot)
        messages.success(request, presenters.cleared_message(bot, removed))
        return redirect("web:bot", bot=bot)
    preview = clear_preview(bot=bot, viewer=viewer)
    context = {
        "bot": bot,
        "here": "memory",
        "preview": preview,
        "stays": presenters.clear_stays(preview),
    }
    return page_or_partial(request, "web/clear.html", "confirm", context)


@console_view("GET")
def as_of_page(request, bot: str):
    """What this bot knew on a date (a date picker; replayed from history)."""
    form = AsOfForm(request.GET or {"day": timezone.localdate().isoformat()})
    day = form.cleaned_data["day"] if form.is_valid() else None
    facts = console_bot_as_of(viewer=viewer_of(request), bot=bot, day=day) if day else []
    context = {
        "bot": bot,
        "here": "as-of",
        "form": form,
        "day": day,
        "rows": [(f, presenters.scope_label(f.scope)) for f in facts],
    }
    return render(request, "web/as_of.html", context)
