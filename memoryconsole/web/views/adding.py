"""Adding a fact to a bot's memory: the form (text, scope, tier, type, visibility, importance,
date) and saving it; errors are shown beside the fields, and nothing is saved."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse

from memoryconsole.web.forms import FactAddForm
from memoryconsole.web.presenters import common, facts
from memoryconsole.web.views.common import console_view, viewer_of
from memstore.console.authoring import add_scopes, console_fact_add
from memstore.console.search import TAB_OF_KIND
from memstore.errors import MemstoreError, NotAllowed
from memstore.facts.markdown import MAX_TEXT_CHARS


@console_view("GET", "POST")
def add_fact(request, bot: str):
    """GET: the new-fact form. POST: save it as the person, or show why not beside the form."""
    viewer = viewer_of(request)
    scopes = add_scopes(bot=bot, viewer=viewer)
    choices = [(str(s), common.scope_label(str(s))) for s in scopes]
    if request.method == "GET":
        form = FactAddForm(scopes=choices, initial={"scope": choices[0][0]})
        return _form_page(request, bot, form)
    form = FactAddForm(request.POST, scopes=choices)
    if not form.is_valid():
        return _form_page(request, bot, form, status=422)
    scope = next(s for s in scopes if str(s) == form.cleaned_data["scope"])
    try:
        row = console_fact_add(viewer=viewer, bot=bot, scope=scope, fields=form.fact_fields())
    except NotAllowed:
        raise
    except MemstoreError as error:
        form.add_error("text", error.message)
        return _form_page(request, bot, form, status=error.status)
    messages.success(request, facts.added_message(row.fact))
    return redirect(f"{reverse('web:bot', args=[bot])}?tab={TAB_OF_KIND[scope.kind]}")


def _form_page(request, bot: str, form: FactAddForm, status: int = 200):
    context = {"bot": bot, "here": "memory", "form": form, "max_chars": MAX_TEXT_CHARS}
    return render(request, "web/add.html", context, status=status)
