"""Console pages of memory upkeep: the graph of links (a bot's store or one fact's neighbourhood,
server-rendered SVG), the health report (per bot and for the workspace) with one-click fixes,
and the inbox of upkeep and synthesis proposals with accept and reject.

Thin: parse the request, call one `memstore.console` function, render or redirect back. A
domain error on a fix is shown as a message on the page it came from."""

import re

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme

from memoryconsole.web.views.common import console_view, url_with, viewer_of
from memstore.console.graph import bot_graph, fact_graph
from memstore.console.health import (
    KIND_LABELS,
    console_health_fix,
    console_proposal_decide,
    health_rows,
    health_view,
    proposals_view,
)
from memstore.console.overview import memory_links
from memstore.errors import MemstoreError
from memstore.models import Proposal
from memstore.upkeep.readiness import memory_volume_notice
from memstore.vocabulary import FACT_ID_PATTERN, anchored

_FACT_ID = re.compile(anchored(FACT_ID_PATTERN))
_FIXES = ("archive", "merge", "erase", "keep")


def _back(request, fallback: str):
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = fallback
    return redirect(target or fallback)


@console_view("GET")
def graph_page(request, bot: str):
    """The links of a bot's memory, or (?fact=<id>) one fact's neighbourhood."""
    fact_id = request.GET.get("fact", "").strip().lower()
    if fact_id and not _FACT_ID.match(fact_id):
        raise Http404("No such fact.")
    viewer = viewer_of(request)
    graph = (
        fact_graph(bot=bot, viewer=viewer, fact_id=fact_id)
        if fact_id
        else bot_graph(bot=bot, viewer=viewer)
    )
    context = {"bot": bot, "here": "graph", "graph": graph, "fact_id": fact_id}
    return render(request, "web/graph.html", context)


@console_view("GET", "POST")
def health_page(request, bot: str | None = None):
    """What looks wrong in a bot's memory (or the workspace's), each with its fix: the last
    finished report, one kind and one page at a time; POST asks for a new report."""
    if request.method == "POST":
        health_view(viewer=viewer_of(request), bot=bot, refresh=True)
        return redirect(request.path)
    kind = request.GET.get("kind", "")
    kind = kind if kind in KIND_LABELS else ""
    offset = request.GET.get("offset", "")
    offset = min(int(offset), 10**6) if offset.isdigit() else 0
    view = health_view(viewer=viewer_of(request), bot=bot, kind=kind, offset=offset)
    counts = [(k, label, view.counts.get(k, 0)) for k, label in KIND_LABELS.items()]
    page = view.page
    volume_code, volume_notice = memory_volume_notice()
    context = {
        "volume_code": volume_code,
        "volume_notice": volume_notice,
        "bot": bot,
        "links": [] if bot else memory_links(viewer=viewer_of(request)),
        "here": "health",
        "report": view,
        "counts": counts,
        "kind": kind,
        "rows": health_rows(page.items),
        "first": page.offset + 1,
        "last": page.offset + len(page.items),
        "more_url": url_with(request, offset=page.offset + len(page.items))
        if page.has_more and page.items
        else "",
        "back_url": url_with(request, offset=max(0, page.offset - page.limit) or None)
        if page.offset
        else "",
    }
    return render(request, "web/health.html", context)


@console_view("POST")
def health_fix(request):
    """One fix (archive, merge, erase, keep) as this person; back to the page it came from."""
    data = request.POST
    action = data.get("action", "")
    if action not in _FIXES or not _FACT_ID.match(data.get("id", "")):
        raise Http404("No such fix.")
    if action == "erase" and data.get("confirmed") != "1":
        # Irreversible: asked first, with Cancel the focused answer.
        fields = [(k, data[k]) for k in ("action", "shard", "id", "next") if k in data]
        back = data.get("next", "")
        if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
            back = "/health/"
        return render(request, "web/health_erase.html", {"fields": fields, "back": back})
    try:
        changed = console_health_fix(
            viewer=viewer_of(request),
            action=action,
            shard=data.get("shard", ""),
            fact_id=data["id"],
            keep_shard=data.get("keep_shard", ""),
            keep=data.get("keep", ""),
        )
        messages.success(request, f"Done: {action} ({changed} line{'s' if changed != 1 else ''}).")
    except MemstoreError as error:
        messages.error(request, error.message)
    return _back(request, "/health/")


@console_view("GET")
def proposals_page(request, bot: str):
    """Upkeep and synthesis proposals for a bot, by status, with accept and reject."""
    status = request.GET.get("status", Proposal.PROPOSED)
    statuses = [s for s, _ in Proposal.STATUSES]
    if status not in statuses:
        raise Http404("No such status.")
    rows = proposals_view(viewer=viewer_of(request), bot=bot, status=status)
    context = {
        "bot": bot,
        "here": "proposals",
        "rows": rows,
        "status": status,
        "statuses": statuses,
        "can_edit": viewer_of(request).may_edit(bot),
    }
    return render(request, "web/proposals.html", context)


@console_view("POST")
def proposal_decide(request, bot: str):
    """Accept (apply) or reject one proposal; back to the page it came from."""
    decision = request.POST.get("decision", "")
    if decision not in ("accept", "reject") or not request.POST.get("proposal", "").isdigit():
        raise Http404("No such proposal.")
    try:
        proposal = console_proposal_decide(
            viewer=viewer_of(request),
            bot=bot,
            proposal_id=int(request.POST["proposal"]),
            accept=decision == "accept",
        )
        if proposal.status == Proposal.FAILED:
            messages.error(request, f"Not applied: {proposal.result.get('error', '')}")
        else:
            messages.success(request, f"Proposal {proposal.status}.")
    except MemstoreError as error:
        messages.error(request, error.message)
    return _back(request, f"/bots/{bot}/proposals/")
