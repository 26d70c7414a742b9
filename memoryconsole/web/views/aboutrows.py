"""One fact row of a person's About me page: show it (what Cancel goes back to), edit it in
place, forget that bot's copy, undo. The person (or staff) changes facts about themselves here
whether or not they may edit the bot that wrote them (`memstore.console.aboutme` checks the
file is theirs). htmx swaps the row's `<li>`; without JavaScript a change goes back to the page.
"""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils import timezone

from memoryconsole.web.forms import FactEditForm, FactRefForm
from memoryconsole.web.presenters import aboutme as presenters
from memoryconsole.web.views.aboutme import TEMPLATE, person_urls
from memoryconsole.web.views.common import console_view, viewer_of
from memstore.console.aboutme import (
    AboutFact,
    about_fact_edit,
    about_fact_forget,
    about_fact_get,
    about_fact_undo,
)
from memstore.errors import EditConflict, FactNotFound, MemstoreError, NotAllowed
from memstore.facts.markdown import MAX_TEXT_CHARS

ROW_ERROR = "web/bot.html#fact-gone"


def _ref(data) -> tuple[str, str]:
    form = FactRefForm(data)
    if not form.is_valid():
        raise FactNotFound("No such fact.")
    return form.cleaned_data["file"], form.cleaned_data["id"]


def _render(request, person: str, part: str, context: dict, status: int = 200):
    base = {"person": person, "urls": person_urls(person), "max_chars": MAX_TEXT_CHARS}
    return render(request, f"{TEMPLATE}#{part}", base | context, status=status)


def _row(request, person: str, item: AboutFact, saved: str = ""):
    if saved and not request.htmx:
        messages.success(request, saved)
        return redirect(person_urls(person)["page"])
    row = presenters.about_fact_view(item, today=timezone.localdate())
    return _render(request, person, "about-row", {"row": row, "focus": True})


@console_view("GET", fragment=ROW_ERROR)
def about_row(request, person: str):
    """One row (what Cancel goes back to)."""
    file, fact_id = _ref(request.GET)
    item = about_fact_get(viewer=viewer_of(request), person=person, file=file, fact_id=fact_id)
    return _row(request, person, item)


@console_view("GET", "POST", fragment=ROW_ERROR)
def about_edit(request, person: str):
    """GET: the row as a form. POST: save; a refusal or a concurrent change keeps the text."""
    viewer = viewer_of(request)
    if request.method == "GET":
        file, fact_id = _ref(request.GET)
        fact = about_fact_get(viewer=viewer, person=person, file=file, fact_id=fact_id).fact
        edit = {"file": fact.file, "id": fact.fact_id, "expected": fact.text}
        return _render(request, person, "about-form", {"edit": edit, "text": fact.body})
    form = FactEditForm(request.POST)
    edit = {k: request.POST.get(k, "") for k in ("file", "id", "expected")}
    context = {"edit": edit, "text": request.POST.get("text", "")}
    if not form.is_valid():
        errors = "; ".join(e for field in form.errors.values() for e in field)
        return _render(request, person, "about-form", context | {"error": errors}, 422)
    data = form.cleaned_data
    try:
        item = about_fact_edit(
            viewer=viewer,
            person=person,
            file=data["file"],
            fact_id=data["id"],
            text=data["text"],
            expected_text=data["expected"],
        )
    except (NotAllowed, FactNotFound):
        raise
    except EditConflict as error:
        current = error.detail.get("current")
        context |= {"edit": edit | {"expected": current or ""}, "current": current}
        return _render(request, person, "about-form", context | {"error": error.message}, 409)
    except MemstoreError as error:  # a refusal: a secret, an excluded topic, too long
        return _render(request, person, "about-form", context | {"error": error.message}, 422)
    return _row(request, person, item, saved="Saved.")


@console_view("POST", fragment=ROW_ERROR)
def about_delete(request, person: str):
    """Forget this bot's copy; the row becomes an Undo button."""
    file, fact_id = _ref(request.POST)
    viewer = viewer_of(request)
    bot, text = about_fact_forget(viewer=viewer, person=person, file=file, fact_id=fact_id)
    removed = {"file": file, "id": fact_id, "text": text, "bot": bot}
    if not request.htmx:
        messages.success(request, f"Forgot {bot}’s copy of “{text}”.")
        return redirect(person_urls(person)["page"])
    return _render(request, person, "about-removed", {"removed": removed})


@console_view("POST", fragment=ROW_ERROR)
def about_undo(request, person: str):
    """Put a just-forgotten fact back where it was."""
    file, fact_id = _ref(request.POST)
    item = about_fact_undo(viewer=viewer_of(request), person=person, file=file, fact_id=fact_id)
    return _row(request, person, item, saved="Restored.")
