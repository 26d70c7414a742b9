"""Search every bot a person may see at once (their own user memory only, unless staff)."""

from urllib.parse import urlencode

from django.urls import reverse
from django.utils import timezone

from memoryconsole.web.forms import FactQueryForm
from memoryconsole.web.presenters import facts
from memoryconsole.web.presenters import search as presenters_search
from memoryconsole.web.presenters.why import why_lines
from memoryconsole.web.views.common import console_view, page_or_partial, url_with, viewer_of
from memstore.console.search import workspace_search
from memstore.console.why import search_why as search_why_of
from memstore.errors import InvalidQuery


@console_view("GET", vary=True)
def search_page(request):
    """The workspace-wide search: the best matches across bots, each labelled by bot and scope."""
    query = FactQueryForm(request.GET).query()
    context = {"query": query, "here": "search", "rows": [], "search": None}
    if query.q.strip():
        results = workspace_search(viewer=viewer_of(request), query=query)
        marks = presenters_search.search_marks(results.searched, results.literal)
        today = timezone.localdate()
        context |= {
            "rows": [
                facts.fact_row_view(h.row, bot=h.bot, today=today, marks=marks, where=h.bot)
                for h in results.hits
            ],
            "links": [presenters_search.hit_link(h, results.searched) for h in results.hits],
            "whys": [presenters_search.why_link(h, results.searched) for h in results.hits],
            "search": presenters_search.search_summary(results, query.q, everywhere=True),
            "as_typed_url": url_with(request, exact=1) if results.corrected else "",
            "suggestion_url": url_with(request, q=results.suggestion) if results.suggestion else "",
        }
    context["pairs"] = list(
        zip(context["rows"], context.get("links", []), context.get("whys", []), strict=False)
    )
    return page_or_partial(request, "web/search.html", "results", context)


@console_view("GET", vary=True)
def search_why(request):
    """Why one search result came where it did (an htmx partial under the result, or a page)."""
    query = request.GET.get("q", "")
    fact_id = request.GET.get("id", "").strip().lower()
    if not query.strip() or not fact_id:
        raise InvalidQuery("Say which search (q) and which fact (id) to explain.")
    why = search_why_of(viewer=viewer_of(request), query=query, fact_id=fact_id)
    context = {"why": why, "lines": why_lines(why), "here": "search", "fact_id": fact_id}
    return page_or_partial(request, "web/why.html", "why", context)


@console_view("GET", vary=True)
def bot_search_why(request, bot: str):
    """Why one result of a bot page's search came where it did (the page's scopes)."""
    query = request.GET.get("q", "")
    fact_id = request.GET.get("id", "").strip().lower()
    if not query.strip() or not fact_id:
        raise InvalidQuery("Say which search (q) and which fact (id) to explain.")
    scope = request.GET.get("scope", "").strip()
    why = search_why_of(
        viewer=viewer_of(request), query=query, fact_id=fact_id, bot=bot, scope=scope
    )
    context = {
        "why": why,
        "lines": why_lines(why),
        "here": "memory",
        "fact_id": fact_id,
        "bot": bot,
        "search_url": f"{reverse('web:bot', args=[bot])}?{urlencode({'q': why.query})}",
    }
    return page_or_partial(request, "web/why.html", "why", context)
