"""The Sensitive keywords page: the workspace's list of words that keep a memory out of shared
memory; staff change it (or go back to the default), everyone else reads it."""

from django.contrib import messages
from django.shortcuts import redirect, render

from memoryconsole.web.forms import KeywordsForm
from memoryconsole.web.views.common import console_view, viewer_of
from memstore.console.sensitive import (
    console_keywords,
    console_keywords_reset,
    console_keywords_save,
)
from memstore.errors import InvalidTopic


@console_view("GET", "POST")
def sensitive_keywords_page(request):
    """GET: the list in force. POST: save the list, or reset it to the default (staff)."""
    viewer = viewer_of(request)
    if request.method == "POST":
        form = KeywordsForm(request.POST)
        if not form.is_valid():
            raise InvalidTopic("The list is too long: at most 40,000 characters.")
        if form.cleaned_data["action"] == "reset":
            said = console_keywords_reset(viewer=viewer)
        else:
            said = console_keywords_save(viewer=viewer, text=form.cleaned_data["words"])
        messages.success(request, said)
        return redirect("web:sensitive_keywords")
    view = console_keywords(viewer=viewer)
    return render(request, "web/sensitive.html", {"view": view, "here": "sensitive"})
