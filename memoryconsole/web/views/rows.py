"""One fact row of a bot's page: show it (what Cancel goes back to), edit it in place, confirm
or mark it (outdated, wrong, do-not-use), delete it, undo the delete, or delete and erase it (after a confirmation saying how far it reaches). htmx swaps the row's `<li>`; without JavaScript the same partial is shown
on a small page of its own with a way back."""

from dataclasses import asdict

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone

from memoryconsole.web.forms import FactEditForm, FactRefForm
from memoryconsole.web.presenters import facts
from memoryconsole.web.views.common import console_view, viewer_of
from memstore.console.authoring import console_fact_update, fact_fields_of
from memstore.console.facts import FactRow, console_fact_get
from memstore.console.feedback import console_fact_feedback
from memstore.console.sharing import console_fact_share, console_share_plan
from memstore.console.writes import (
    console_fact_erase,
    console_fact_forget,
    console_fact_undo,
    erase_reach,
)
from memstore.errors import EditConflict, FactNotFound, MemstoreError, NotAllowed
from memstore.facts.markdown import MAX_TEXT_CHARS
from memstore.registry.bots import bot_keeps_private

# An error in a row view replaces the row with a row saying what happened.
ROW_ERROR = "web/bot.html#fact-gone"
_URL_NAMES = {
    "bot": "bot",
    "row": "fact_row",
    "edit": "fact_edit",
    "delete": "fact_delete",
    "undo": "fact_undo",
    "erase": "fact_erase",
    "share": "fact_share",
    "feedback": "fact_feedback",
    "delete_many": "facts_delete",
    "versions": "fact_versions",
    "seen": "fact_seen",
}


def fact_urls(bot: str) -> dict[str, str]:
    """The URLs a fact row links to, reversed once per response rather than per row."""
    return {key: reverse(f"web:{name}", args=[bot]) for key, name in _URL_NAMES.items()}


_DONE = {
    "confirm": "Confirmed: still true.",
    "outdated": "Marked outdated.",
    "wrong": "Marked wrong: left out of prompts and recall.",
    "do-not-use": "Marked do-not-use: left out of prompts and recall.",
}


def _fact_ref(data) -> tuple[str, str]:
    # Which fact a request names: the file it sits in and its identity.
    form = FactRefForm(data)
    if not form.is_valid():
        raise FactNotFound("No such fact.")
    return form.cleaned_data["file"], form.cleaned_data["id"]


def _row_response(request, bot: str, part: str, context_in: dict, status: int = 200):
    context = {
        "bot": bot,
        "part": part,
        "urls": fact_urls(bot),
        "max_chars": MAX_TEXT_CHARS,
        "can_edit": viewer_of(request).may_edit(bot),
        "can_share": viewer_of(request).staff,
    }
    context |= context_in
    template = f"web/bot.html#{part}" if request.htmx else "web/fact.html"
    return render(request, template, context, status=status)


def _show_row(request, bot: str, row: FactRow, saved: str = ""):
    # After a change: htmx gets the row back; a browser without JavaScript goes back to the list.
    if saved and not request.htmx:
        messages.success(request, saved)
        return redirect("web:bot", bot=bot)
    view = facts.fact_row_view(
        row,
        bot=bot,
        today=timezone.localdate(),
        private_bot=viewer_of(request).staff and bot_keeps_private(slug=bot),
        urls=fact_urls(bot),
    )
    return _row_response(request, bot, "fact-row", {"row": view, "focus": True})


@console_view("GET", fragment=ROW_ERROR)
def fact_row_part(request, bot: str):
    """One fact row (what Cancel goes back to)."""
    file, fact_id = _fact_ref(request.GET)
    return _show_row(
        request, bot, console_fact_get(viewer=viewer_of(request), file=file, fact_id=fact_id)
    )


@console_view("GET", "POST", fragment=ROW_ERROR)
def edit_fact(request, bot: str):
    """GET: the row as a form. POST: save; a concurrent change shows the current text."""
    if request.method == "POST":
        return _save_edit(request, bot)
    file, fact_id = _fact_ref(request.GET)
    row = console_fact_get(viewer=viewer_of(request), file=file, fact_id=fact_id)
    edit = {"file": row.fact.file, "id": row.fact.fact_id, "expected": row.fact.text}
    initial = asdict(fact_fields_of(row.fact)) | edit
    form = FactEditForm(initial=initial, auto_id=f"edit-{fact_id}-%s")
    return _row_response(request, bot, "fact-form", {"edit": edit, "form": form})


def _save_edit(request, bot: str):
    form = FactEditForm(request.POST, auto_id=f"edit-{request.POST.get('id', '')}-%s")
    edit = {k: request.POST.get(k, "") for k in ("file", "id", "expected")}
    context = {"edit": edit, "form": form}
    if not form.is_valid():
        return _row_response(request, bot, "fact-form", context, 422)
    data = form.cleaned_data
    try:
        row = console_fact_update(
            viewer=viewer_of(request),
            file=data["file"],
            fact_id=data["id"],
            expected_text=data["expected"],
            fields=form.fact_fields(),
        )
    except EditConflict as error:
        # The form again, saying what the fact reads now; saving again is deliberate.
        current = error.detail.get("current")
        context["edit"] = edit | {"expected": current or ""}
        context |= {"error": error.message, "current": current, "gone": current is None}
        return _row_response(request, bot, "fact-form", context, error.status)
    except (NotAllowed, FactNotFound):
        raise  # not this person's to edit, or gone: the console's error answer for the row
    except MemstoreError as error:
        # A refusal (a secret, an excluded topic, too long): the form again with the message,
        # so what the person typed is not lost.
        context["error"] = error.message
        return _row_response(request, bot, "fact-form", context, error.status)
    return _show_row(request, bot, row, saved="Saved.")


@console_view("POST", fragment=ROW_ERROR)
def delete_fact(request, bot: str):
    """Remove a fact from its shard; the row becomes an Undo button."""
    file, fact_id = _fact_ref(request.POST)
    removal = console_fact_forget(viewer=viewer_of(request), file=file, fact_id=fact_id)
    removed = {"file": file, "id": fact_id, "text": removal.text, "count": removal.copies}
    return _row_response(request, bot, "fact-removed", {"removed": removed})


@console_view("POST", fragment=ROW_ERROR)
def undo_delete(request, bot: str):
    """Put a just-removed fact back where it was."""
    file, fact_id = _fact_ref(request.POST)
    row = console_fact_undo(viewer=viewer_of(request), file=file, fact_id=fact_id)
    return _show_row(request, bot, row, saved="Restored.")


@console_view("GET", "POST", fragment=ROW_ERROR)
def erase_fact(request, bot: str):
    """GET: what "Delete and erase" will do, to confirm. POST: erase; the row says what went."""
    viewer = viewer_of(request)
    if request.method == "GET":
        file, fact_id = _fact_ref(request.GET)
        row = console_fact_get(viewer=viewer, file=file, fact_id=fact_id)
        _, reach = erase_reach(viewer=viewer, file=file)
        label = facts.erase_reach_label(reach, row.fact.shard_bot)
        erase = {"file": file, "id": fact_id, "text": row.fact.body, "reach": label}
        return _row_response(request, bot, "fact-erase", {"erase": erase})
    file, fact_id = _fact_ref(request.POST)
    erased = console_fact_erase(viewer=viewer, file=file, fact_id=fact_id)
    summary = facts.erased_summary(erased)
    return _row_response(request, bot, "fact-erased", {"erased_summary": summary})


@console_view("GET", "POST", fragment=ROW_ERROR)
def share_fact(request, bot: str):
    """GET: who will see this private memory once shared, to confirm (Cancel focused). POST:
    share it; the row says where it went. Staff only."""
    viewer = viewer_of(request)
    data = request.GET if request.method == "GET" else request.POST
    file, fact_id = _fact_ref(data)
    if request.method == "GET":
        plan = console_share_plan(viewer=viewer, file=file, fact_id=fact_id)
        share = {
            "file": file,
            "id": fact_id,
            "text": plan.fact.body,
            "owner": plan.owner,
            "readers": facts.share_readers_label(plan),
        }
        return _row_response(request, bot, "fact-share", {"share": share})
    shared = console_fact_share(viewer=viewer, file=file, fact_id=fact_id)
    if not request.htmx:
        messages.success(request, f"Shared with the workspace: {shared.fact.body}")
        return redirect(reverse("web:bot", args=[bot]) + "?tab=workspace")
    return _row_response(request, bot, "fact-shared", {"shared_text": shared.fact.body})


@console_view("POST", fragment=ROW_ERROR)
def feedback_fact(request, bot: str):
    """Confirm a fact (still true) or mark it outdated, wrong or do-not-use; the row again."""
    file, fact_id = _fact_ref(request.POST)
    verb = request.POST.get("verb", "")
    _, row = console_fact_feedback(viewer=viewer_of(request), file=file, fact_id=fact_id, verb=verb)
    return _show_row(request, bot, row, saved=_DONE[verb])
