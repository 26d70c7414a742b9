"""A bot's history page (its changes, one shard at a time, newest first) and restoring a
removed fact from it; a fact's versions (its texts before each edit) and restoring one."""

from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse

from memoryconsole.web.forms import FactRefForm, HistoryForm, RestoreForm, VersionRestoreForm
from memoryconsole.web.presenters import facts, history
from memoryconsole.web.views.common import console_view, page_or_partial, url_with, viewer_of
from memstore.console.overview import bot_history, bot_shards
from memstore.console.versions import console_fact_versions, console_version_restore
from memstore.console.writes import console_fact_restore
from memstore.errors import FactNotFound, InvalidFact
from memstore.facts.paths import Shard


@console_view("GET", vary=True)
def history_page(request, bot: str):
    """A bot's changes, one shard at a time, newest first; removed facts can be restored."""
    viewer = viewer_of(request)
    form = HistoryForm(request.GET)
    form.is_valid()
    data = form.cleaned_data
    shards = bot_shards(bot=bot, viewer=viewer)
    shard = Shard.parse(data["shard"]) if data.get("shard") else shards[0]
    removed = bool(data.get("removed"))
    page = bot_history(
        bot=bot, viewer=viewer, shard=shard, before=data.get("before"), removed_only=removed
    )
    context = {
        "bot": bot,
        "here": "history",
        "can_edit": viewer.may_edit(bot),
        "rows": history.history_rows(page.items, viewer.private_conversations),
        "older_url": url_with(request, before=page.before) if page.has_more else "",
        "shard": shard.key,
        "removed": removed,
        "shards": history.shard_choices(shards, viewer.private_conversations),
    }
    return page_or_partial(request, "web/history.html", "history-list", context)


@console_view("POST", fragment="web/history.html#restore-result")
def restore_fact(request, bot: str):
    """Restore a removed fact from the history."""
    form = RestoreForm(request.POST)
    if not form.is_valid():
        raise InvalidFact("That history entry is not a removal that can be restored.")
    shard = Shard.parse(form.cleaned_data["shard"])
    viewer = viewer_of(request)
    fact = console_fact_restore(viewer=viewer, shard=shard, offset=form.cleaned_data["offset"])
    if not request.htmx:
        messages.success(request, f"Restored: {fact.text}")
        return redirect(f"{reverse('web:history', args=[bot])}?shard={shard.key}")
    return render(request, "web/history.html#restore-result", {"fact": fact})


@console_view("GET")
def fact_versions_page(request, bot: str):
    """A fact's earlier texts (one per edit), newest first, each restorable."""
    form = FactRefForm(request.GET)
    if not form.is_valid():
        raise FactNotFound("No such fact.")
    file, fact_id = form.cleaned_data["file"], form.cleaned_data["id"]
    found = console_fact_versions(viewer=viewer_of(request), file=file, fact_id=fact_id)
    context = {
        "bot": bot,
        "here": "memory",
        "current": found.current,
        "can_edit": viewer_of(request).may_edit(found.current.fact.shard_bot),
        "versions": facts.version_rows(found.versions),
    }
    return render(request, "web/versions.html", context)


@console_view("POST")
def fact_version_restore(request, bot: str):
    """Make an earlier text the fact's text again (the text it replaces becomes a version)."""
    form = VersionRestoreForm(request.POST)
    if not form.is_valid():
        raise FactNotFound("No such version of this fact.")
    d = form.cleaned_data
    row = console_version_restore(
        viewer=viewer_of(request), file=d["file"], fact_id=d["id"], at=d["at"]
    )
    messages.success(request, f"Restored: {row.fact.body}")
    query = urlencode({"file": row.fact.file, "id": row.fact.fact_id})
    return redirect(f"{reverse('web:fact_versions', args=[bot])}?{query}")
