"""Where a learned fact came from: the exchange (room, message ids, the stored text, the
model's decisions) and every fact it produced."""

from django.shortcuts import render
from django.utils import timezone

from memoryconsole.web.presenters import facts
from memoryconsole.web.views.common import console_view, viewer_of
from memoryconsole.web.views.rows import fact_urls
from memstore.console.provenance import exchange_trace


@console_view("GET")
def exchange_page(request, bot: str):
    """One exchange, by `?id=` or by a fact's `?src=room:<id>/msg:<id>`."""
    raw_id = request.GET.get("id", "")
    trace = exchange_trace(
        bot=bot,
        viewer=viewer_of(request),
        exchange_id=int(raw_id) if raw_id.isdigit() else None,
        src=request.GET.get("src", ""),
    )
    today = timezone.localdate()
    context = {
        "bot": bot,
        "here": "learning",
        "trace": trace,
        "urls": fact_urls(bot),
        "rows": [facts.fact_row_view(r, bot=bot, today=today) for r in trace.facts],
    }
    return render(request, "web/exchange.html", context)
