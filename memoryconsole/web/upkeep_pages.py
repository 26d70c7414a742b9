"""Console pages of memory upkeep: the graph of links (a bot's store or one fact's
neighbourhood), drawn as server-rendered SVG."""

import re

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memstore.console.facts import bot_exists
from memstore.console.graph import bot_graph, fact_graph
from memstore.console.viewer import Viewer
from memstore.errors import InvalidName
from memstore.vocabulary import FACT_ID_PATTERN, anchored

_FACT_ID = re.compile(anchored(FACT_ID_PATTERN))


def _viewer(request) -> Viewer:
    return Viewer(person=request.user.get_username(), staff=request.user.is_staff)


def _known(bot: str) -> str:
    try:
        if bot_exists(bot):
            return bot
    except InvalidName:
        pass
    raise Http404("No such bot.")


@login_required
@require_GET
def graph_page(request, bot: str):
    """The links of a bot's memory, or (?fact=<id>) one fact's neighbourhood."""
    bot = _known(bot)
    fact_id = request.GET.get("fact", "").strip().lower()
    if fact_id and not _FACT_ID.match(fact_id):
        raise Http404("No such fact.")
    viewer = _viewer(request)
    graph = (
        fact_graph(bot=bot, viewer=viewer, fact_id=fact_id)
        if fact_id
        else bot_graph(bot=bot, viewer=viewer)
    )
    context = {"bot": bot, "here": "graph", "graph": graph, "fact_id": fact_id}
    return render(request, "web/graph.html", context)
