"""Where a learned fact came from and which memories shaped a reply: the exchange (room,
message ids, the stored text, the model's decisions, its memory sources: retrieved, injected
and cited) and every fact it produced; who has seen a fact; a bot's exchanges with their
sources counted."""

from django.shortcuts import render
from django.utils import timezone

from memoryconsole.web.forms import ScopedFactForm
from memoryconsole.web.presenters import facts
from memoryconsole.web.views.common import console_view, viewer_of
from memoryconsole.web.views.rows import fact_urls
from memstore.console.provenance import exchange_trace
from memstore.console.sources import bot_sources, exchange_sources, fact_seen_by
from memstore.errors import FactNotFound

# The three lists of an exchange's memory sources, in order, each with its heading.
SOURCE_TITLES = (
    ("retrieved", "Retrieved: recall returned it just before the reply"),
    ("injected", "Injected: it was in the prompt section the reply was built with"),
    ("cited", "Cited: the bot said it used it"),
)


@console_view("GET")
def exchange_page(request, bot: str):
    """One exchange, by `?id=` or by a fact's `?src=room:<id>/msg:<id>`."""
    raw_id = request.GET.get("id", "")
    viewer = viewer_of(request)
    trace = exchange_trace(
        bot=bot,
        viewer=viewer,
        exchange_id=int(raw_id) if raw_id.isdigit() else None,
        src=request.GET.get("src", ""),
    )
    sources = exchange_sources(exchange_id=trace.id, viewer=viewer)
    today = timezone.localdate()
    urls = fact_urls(bot)

    def view(source):
        row = source.row and facts.fact_row_view(source.row, bot=bot, today=today, urls=urls)
        return {"scope": source.scope, "fact_id": source.fact_id, "row": row}

    context = {
        "bot": bot,
        "here": "learning",
        "trace": trace,
        "urls": urls,
        "can_edit": viewer.may_edit(bot),
        "rows": [facts.fact_row_view(r, bot=bot, today=today, urls=urls) for r in trace.facts],
        "sources": [
            (title, key, [view(s) for s in getattr(sources, key)]) for key, title in SOURCE_TITLES
        ],
        "no_sources": sources.empty,
    }
    return render(request, "web/exchange.html", context)


@console_view("GET")
def fact_seen_page(request, bot: str):
    """The replies a fact was behind (`?scope=kind:name&id=`): which bots, rooms, when."""
    form = ScopedFactForm(request.GET)
    if not form.is_valid():
        raise FactNotFound("No such fact.")
    scope, fact_id = form.cleaned_data["scope"], form.cleaned_data["id"]
    seen = fact_seen_by(scope=scope, fact_id=fact_id, viewer=viewer_of(request))
    context = {"bot": bot, "here": "memory", "scope": scope, "fact_id": fact_id, "seen": seen}
    return render(request, "web/seen.html", context)


@console_view("GET")
def sources_page(request, bot: str):
    """This bot's newest exchanges with how many facts each retrieved, injected and cited."""
    exchanges = bot_sources(bot=bot, viewer=viewer_of(request))
    return render(
        request, "web/sources.html", {"bot": bot, "here": "sources", "exchanges": exchanges}
    )
