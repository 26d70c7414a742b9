"""The always-on notes' pages: About this workspace, a person's About you, a bot's
About me. One page each: the text (editable by those who may), its earlier versions, restore."""

from django.contrib import messages
from django.shortcuts import redirect, render

from memoryconsole.web.forms import NoteForm, NoteVersionForm
from memoryconsole.web.views.common import console_view, viewer_of
from memstore.console.notes import console_note, console_note_restore, console_note_save
from memstore.errors import InvalidNote
from memstore.vocabulary import NoteKind


def _note_page(request, kind: NoteKind, name: str, extra: dict):
    viewer = viewer_of(request)
    if request.method == "POST":
        form = NoteForm(request.POST)
        if not form.is_valid():
            raise InvalidNote("A note holds at most 1,500 characters.")
        console_note_save(
            viewer=viewer,
            kind=kind,
            name=name,
            text=form.cleaned_data["text"],
            expected=form.cleaned_data["expected"],
        )
        messages.success(request, "Saved. The previous text is kept as a version.")
        return redirect(request.path)
    view = console_note(viewer=viewer, kind=kind, name=name)
    return render(request, "web/note.html", extra | {"view": view, "note": view.note})


def _restore(request, kind: NoteKind, name: str):
    form = NoteVersionForm(request.POST)
    if not form.is_valid():
        raise InvalidNote("No such version of this note.")
    viewer = viewer_of(request)
    console_note_restore(viewer=viewer, kind=kind, name=name, version=form.cleaned_data["version"])
    messages.success(request, "Restored. The text it replaced is kept as a version.")
    return redirect(request.path.removesuffix("restore/"))


@console_view("GET", "POST")
def workspace_note_page(request):
    """About this workspace: in every prompt; staff edit it."""
    return _note_page(request, "workspace", "", {"here": "workspace-note"})


@console_view("GET", "POST")
def about_you_page(request, person: str = ""):
    """A person's About you: in their direct rooms only; they write it (staff may open any)."""
    person = person or viewer_of(request).person
    return _note_page(request, "you", person, {"here": "about-you", "person": person})


@console_view("GET", "POST")
def about_me_page(request, bot: str):
    """A bot's About me: the bot edits it through the API, staff here."""
    return _note_page(request, "me", bot, {"here": "about-me", "bot": bot})


@console_view("POST")
def workspace_note_restore(request):
    return _restore(request, "workspace", "")


@console_view("POST")
def about_you_restore(request, person: str = ""):
    return _restore(request, "you", person or viewer_of(request).person)


@console_view("POST")
def about_me_restore(request, bot: str):
    return _restore(request, "me", bot)
