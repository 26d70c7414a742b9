"""Console views: parse the request, call the console's selectors or services, render.

One view per endpoint, one template per page; an htmx request gets a named partial of the same
template (`web/bot.html#fact-list`). Every mutation is a POST with the CSRF token (sent once by
`hx-headers` on <body>, and in each form for browsers without JavaScript).
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from memoryconsole.web.forms import (
    FactEditForm,
    FactQueryForm,
    FactRefForm,
    HistoryForm,
    LearningForm,
    PromptForm,
    RestoreForm,
)
from memstore.console.facts import (
    bot_exists,
    bot_tabs,
    fact_row,
    fact_rows,
    row_of,
)
from memstore.console.files import bot_files, file_view
from memstore.console.learning import bot_learning
from memstore.console.overview import (
    bot_history,
    bot_shards,
    bots_overview,
    problems_list,
    workspace_changes,
)
from memstore.console.preview import preview_choices, prompt_preview
from memstore.console.viewer import Viewer, scope_label
from memstore.console.writes import (
    clear_preview,
    console_fact_edit,
    console_fact_forget,
    console_fact_restore,
    console_fact_undo,
    console_memory_clear,
    shard_key,
    shard_parse,
)
from memstore.errors import EditConflict, FactNotFound, InvalidName, MemstoreError, NotAllowed
from memstore.vocabulary import FACT_TYPES, TIERS


def _viewer(request) -> Viewer:
    return Viewer(person=request.user.get_username(), staff=request.user.is_staff)


def _fact_urls(bot: str) -> dict[str, str]:
    # Reversed once per response rather than four times per row.
    names = {
        "bot": "bot",
        "row": "fact_row",
        "edit": "fact_edit",
        "delete": "fact_delete",
        "undo": "fact_undo",
    }
    return {key: reverse(f"web:{name}", args=[bot]) for key, name in names.items()}


def _partial(request) -> bool:
    # A history restore (Back after hx-push-url) asks for the whole page again.
    return bool(request.htmx) and not request.htmx.history_restore_request


def _bot_or_404(bot: str) -> str:
    try:
        if bot_exists(bot):
            return bot
    except InvalidName:
        pass
    raise Http404("No such bot.")


@login_required
@require_GET
def home_page(request):
    """Bots with their fact counts, the newest changes, and what failed."""
    viewer = _viewer(request)
    context = {
        "bots": bots_overview(viewer=viewer),
        "changes": workspace_changes(viewer=viewer),
        "problems": problems_list(viewer=viewer),
    }
    return render(request, "web/home.html", context)


@login_required
@require_GET
@vary_on_headers("HX-Request")
def bot_page(request, bot: str):
    """A bot's memory on one tab: search and filters as you type, paged newest first."""
    bot = _bot_or_404(bot)
    viewer = _viewer(request)
    query = FactQueryForm(request.GET).query()
    partial = _partial(request)
    tabs = None if partial else bot_tabs(bot=bot, viewer=viewer)
    try:
        rows = fact_rows(bot=bot, viewer=viewer, query=query, today=timezone.localdate(), tabs=tabs)
    except NotAllowed:
        raise Http404("That scope is not on this tab.") from None
    context = {
        "bot": bot,
        "here": "memory",
        "urls": _fact_urls(bot),
        "query": query,
        "page": rows,
        "bot_url": request.path,
        "next_url": _with_cursor(request, rows.next_cursor) if rows.next_cursor else "",
        "newest_url": _with_cursor(request, "") if query.cursor else "",
    }
    if partial:
        return render(request, "web/bot.html#fact-list", context)
    context |= {
        "tabs": tabs,
        "scopes": [(str(s), scope_label(str(s))) for s in rows.scopes],
        "tiers": TIERS,
        "types": FACT_TYPES,
    }
    return render(request, "web/bot.html", context)


def _with_cursor(request, cursor: str) -> str:
    params = request.GET.copy()
    params.pop("cursor", None)
    if cursor:
        params["cursor"] = cursor
    return f"{request.path}?{params.urlencode()}"


def _fact_response(request, bot: str, part: str, context: dict, status: int = 200):
    # htmx swaps the named partial into the row; without JavaScript the same partial is shown
    # on a small page of its own with a way back.
    context = {"bot": bot, "part": part, "urls": _fact_urls(bot), **context}
    template = f"web/bot.html#{part}" if request.htmx else "web/fact.html"
    return render(request, template, context, status=status)


@login_required
@require_GET
def fact_row_part(request, bot: str):
    """One fact row (what Cancel goes back to)."""
    form = FactRefForm(request.GET)
    if not form.is_valid():
        raise Http404("No such fact.")
    try:
        row = fact_row(
            viewer=_viewer(request),
            file=form.cleaned_data["file"],
            fact_id=form.cleaned_data["id"],
            today=timezone.localdate(),
        )
    except NotAllowed:
        raise PermissionDenied from None
    except FactNotFound as error:
        return _fact_response(request, bot, "fact-gone", {"message": error.message}, 404)
    return _fact_response(request, bot, "fact-row", {"row": row, "focus": True})


@login_required
@require_http_methods(["GET", "POST"])
def edit_fact(request, bot: str):
    """GET: the row as a form. POST: save; a concurrent change shows the current text."""
    viewer, today = _viewer(request), timezone.localdate()
    if request.method == "GET":
        ref = FactRefForm(request.GET)
        if not ref.is_valid():
            raise Http404("No such fact.")
        try:
            row = fact_row(
                viewer=viewer,
                file=ref.cleaned_data["file"],
                fact_id=ref.cleaned_data["id"],
                today=today,
            )
        except NotAllowed:
            raise PermissionDenied from None
        except FactNotFound as error:
            return _fact_response(request, bot, "fact-gone", {"message": error.message}, 404)
        edit = {"file": row.fact.file, "id": row.fact.fact_id, "expected": row.fact.text}
        return _fact_response(
            request, bot, "fact-form", {"edit": edit, "text": row.fact.body, "row": row}
        )
    form = FactEditForm(request.POST)
    edit = {k: request.POST.get(k, "") for k in ("file", "id", "expected")}
    text = request.POST.get("text", "")
    if not form.is_valid():
        errors = "; ".join(e for field in form.errors.values() for e in field)
        return _fact_response(
            request, bot, "fact-form", {"edit": edit, "text": text, "error": errors}, 422
        )
    data = form.cleaned_data
    try:
        row = console_fact_edit(
            viewer=viewer,
            file=data["file"],
            fact_id=data["id"],
            text=data["text"],
            expected_text=data["expected"],
            today=today,
        )
    except EditConflict as error:
        current = error.detail.get("current")
        context = {"edit": edit | {"expected": current or ""}, "text": text}
        context |= {"error": error.message, "current": current, "gone": current is None}
        return _fact_response(request, bot, "fact-form", context, 409)
    except NotAllowed:
        raise PermissionDenied from None
    except MemstoreError as error:
        context = {"edit": edit, "text": text, "error": error.message}
        return _fact_response(request, bot, "fact-form", context, error.status)
    if not request.htmx:
        messages.success(request, "Saved.")
        return redirect("web:bot", bot=bot)
    return _fact_response(request, bot, "fact-row", {"row": row, "focus": True})


@login_required
@require_POST
def delete_fact(request, bot: str):
    """Remove a fact from its shard; the row becomes an Undo button."""
    form = FactRefForm(request.POST)
    if not form.is_valid():
        raise Http404("No such fact.")
    file, fact_id = form.cleaned_data["file"], form.cleaned_data["id"]
    try:
        removal = console_fact_forget(viewer=_viewer(request), file=file, fact_id=fact_id)
    except NotAllowed:
        raise PermissionDenied from None
    except FactNotFound as error:
        return _fact_response(request, bot, "fact-gone", {"message": error.message}, 404)
    removed = {"file": file, "id": fact_id, "text": removal.text, "count": removal.copies}
    return _fact_response(request, bot, "fact-removed", {"removed": removed})


@login_required
@require_POST
def undo_delete(request, bot: str):
    """Put a just-removed fact back where it was."""
    form = FactRefForm(request.POST)
    if not form.is_valid():
        raise Http404("No such fact.")
    try:
        restored = console_fact_undo(
            viewer=_viewer(request), file=form.cleaned_data["file"], fact_id=form.cleaned_data["id"]
        )
    except NotAllowed:
        raise PermissionDenied from None
    except FactNotFound as error:
        return _fact_response(request, bot, "fact-gone", {"message": error.message}, 404)
    fact = restored[0]
    by = request.user.get_username()
    row = row_of(fact, by=by, via="console", today=timezone.localdate(), key=fact.fact_id)
    if not request.htmx:
        messages.success(request, "Restored.")
        return redirect("web:bot", bot=bot)
    return _fact_response(request, bot, "fact-row", {"row": row, "focus": True})


@login_required
@require_GET
@vary_on_headers("HX-Request")
def history_page(request, bot: str):
    """A bot's changes, one shard at a time, newest first; removed facts can be restored."""
    bot = _bot_or_404(bot)
    viewer = _viewer(request)
    form = HistoryForm(request.GET)
    form.is_valid()
    data = form.cleaned_data
    shards = bot_shards(bot=bot, viewer=viewer)
    try:
        shard = shard_parse(data["shard"]) if data.get("shard") else shards[0]
        rows, before = bot_history(
            bot=bot,
            viewer=viewer,
            shard=shard,
            before=data.get("before"),
            removed_only=bool(data.get("removed")),
        )
    except (InvalidName, NotAllowed):
        raise Http404("No such history.") from None
    older = request.GET.copy()
    older["before"] = before
    context = {
        "bot": bot,
        "here": "history",
        "rows": rows,
        "older_url": f"{request.path}?{older.urlencode()}" if before is not None else "",
        "shard": shard_key(shard),
        "removed": bool(data.get("removed")),
        "shards": [(shard_key(s), scope_label(str(s.scope))) for s in shards],
    }
    template = "web/history.html#history-list" if _partial(request) else "web/history.html"
    return render(request, template, context)


@login_required
@require_POST
def restore_fact(request, bot: str):
    """Restore a removed fact from the history."""
    form = RestoreForm(request.POST)
    if not form.is_valid():
        raise Http404("No such change.")
    try:
        shard = shard_parse(form.cleaned_data["shard"])
        fact = console_fact_restore(
            viewer=_viewer(request), shard=shard, offset=form.cleaned_data["offset"]
        )
    except (InvalidName, NotAllowed):
        raise PermissionDenied from None
    except MemstoreError as error:
        return render(
            request, "web/history.html#restore-result", {"error": error.message}, status=422
        )
    if not request.htmx:
        messages.success(request, f"Restored: {fact.text}")
        return redirect(f"{reverse('web:history', args=[bot])}?shard={shard_key(shard)}")
    return render(request, "web/history.html#restore-result", {"fact": fact})


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def clear_memory(request, bot: str):
    """GET: what clearing removes and what stays. POST: clear the bot's own memory."""
    bot = _bot_or_404(bot)
    viewer = _viewer(request)
    if request.method == "POST":
        removed = console_memory_clear(viewer=viewer, bot=bot)
        messages.success(
            request,
            f"Removed {removed} facts from {bot}'s own memory. User and project memory stayed. "
            "Each removal is in the history, where it can be restored.",
        )
        return redirect("web:bot", bot=bot)
    context = {"bot": bot, "here": "memory", "preview": clear_preview(bot=bot, viewer=viewer)}
    template = "web/clear.html#confirm" if _partial(request) else "web/clear.html"
    return render(request, template, context)


@login_required
@require_GET
@vary_on_headers("HX-Request")
def prompt_page(request, bot: str):
    """What the bot's prompt memory section would hold in a chosen room, block by block."""
    bot = _bot_or_404(bot)
    viewer = _viewer(request)
    choices = preview_choices(bot=bot, viewer=viewer)
    data = request.GET if "kind" in request.GET else {"kind": "direct", "person": viewer.person}
    form = PromptForm(data, projects=choices.projects, people=choices.people)
    section, error = None, ""
    if form.is_valid():
        d = form.cleaned_data
        try:
            section = prompt_preview(
                bot=bot,
                viewer=viewer,
                kind=d["kind"],
                person=d["person"],
                room=d["room"],
                projects=d["projects"],
            )
        except MemstoreError as exc:
            error = exc.message
    context = {
        "bot": bot,
        "here": "prompt",
        "form": form,
        "choices": choices,
        "section": section,
        "error": error,
    }
    template = "web/prompt.html#preview" if _partial(request) else "web/prompt.html"
    return render(request, template, context)


@login_required
@require_GET
@vary_on_headers("HX-Request")
def learning_page(request, bot: str):
    """What the learner did for this bot (saved, removed, skipped, refused, failed), newest first."""
    bot = _bot_or_404(bot)
    form = LearningForm(request.GET)
    form.is_valid()
    kind, offset = form.cleaned_data.get("kind") or "", form.cleaned_data.get("offset") or 0
    view = bot_learning(bot=bot, viewer=_viewer(request), kind=kind, offset=offset)
    more = ""
    if view.page.has_more:
        params = request.GET.copy()
        params["offset"] = offset + len(view.page.items)
        more = f"{request.path}?{params.urlencode()}"
    context = {"bot": bot, "here": "learning", "view": view, "kind": kind, "more_url": more}
    template = "web/learning.html#activity" if _partial(request) else "web/learning.html"
    return render(request, template, context)


@login_required
@require_GET
def files_page(request, bot: str):
    """The bot's memory files, or one of them line by line (prose kept, skipped lines marked)."""
    bot = _bot_or_404(bot)
    viewer = _viewer(request)
    path = request.GET.get("path", "")
    context = {"bot": bot, "here": "files"}
    if not path:
        return render(
            request, "web/files.html", context | {"files": bot_files(bot=bot, viewer=viewer)}
        )
    try:
        view = file_view(viewer=viewer, path=path)
    except NotAllowed:
        raise Http404("No such file.") from None
    return render(request, "web/files.html", context | {"file": view})
