"""A person's About me page (everything any bot knows about them, searchable, with edit, forget
and forget everywhere; their memory controls and their history; the bots that know them), what
can reach their prompts, and the export download.

`/me/` is the viewer's own page; `/people/<person>/…` the same for a named person, which only
that person or staff may open (`memstore.console.aboutme.about_whom` decides). Edit and forget
of one bot's copy are `aboutrows`.
"""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone

from memoryconsole.web.forms import AboutAddForm, AboutQueryForm, ControlForm, FactIdForm
from memoryconsole.web.presenters import aboutme as presenters
from memoryconsole.web.presenters import forgotten as presenters_forgotten
from memoryconsole.web.presenters import search as presenters_search
from memoryconsole.web.views.common import console_view, page_or_partial, url_with, viewer_of
from memstore.console.aboutme import (
    about_fact_add,
    about_facts,
    about_search,
    about_whom,
    bot_unlink,
    bots_knowing,
    bots_linked,
    forget_everywhere,
)
from memstore.console.forgotten_recently import person_forgotten
from memstore.console.reach import prompt_reach
from memstore.errors import FactNotFound, InvalidTopic, MemstoreError, NotAllowed
from memstore.facts.paths import locate
from memstore.privacy.person_export import person_export
from memstore.rules.controls import (
    controls_history,
    memory_pause,
    memory_resume,
    person_controls,
    topic_exclude,
    topic_include,
)

_CONTROLS = {"pause": memory_pause, "resume": memory_resume}
_TOPICS = {"exclude": topic_exclude, "include": topic_include}
TEMPLATE = "web/about_me.html"


_PERSON_URLS = (
    "page",
    "add",
    "controls",
    "forget",
    "export",
    "prompts",
    "unlink",
    "row",
    "edit",
    "delete",
    "undo",
)


def person_urls(person: str) -> dict[str, str]:
    """The URLs of a person's About me pages and rows, reversed once per response."""
    return {name: reverse(f"web:about_{name}", args=[person]) for name in _PERSON_URLS}


@console_view("GET", vary=True)
def about_me_page(request, person: str | None = None):
    """Everything the bots know about the person, newest first; search as you type."""
    viewer = viewer_of(request)
    whom = about_whom(viewer=viewer, person=person or request.GET.get("person"))
    form = AboutQueryForm(request.GET)
    form.is_valid()
    q, offset = form.cleaned_data.get("q") or "", form.cleaned_data.get("offset") or 0
    group = form.cleaned_data.get("group") or ""
    search = results = None
    if q.strip():
        exact = bool(form.cleaned_data.get("exact"))
        page, results = about_search(person=whom, q=q, exact=exact)
        search = presenters_search.search_summary(results, q)
    else:
        page = about_facts(person=whom, offset=offset)
    today = timezone.localdate()
    rows = [presenters.about_fact_view(item, today=today) for item in page.items]
    context = {
        "person": whom,
        "own": whom == viewer.person,
        "urls": person_urls(whom),
        "q": q,
        "group": group,
        "groupings": presenters.GROUPINGS,
        "groups": presenters.about_groups(rows, group),
        "rows": rows,
        "summary": presenters.about_summary(page, results.searched if results else q),
        "search": search,
        "as_typed_url": url_with(request, exact=1) if results and results.corrected else "",
        "suggestion_url": url_with(request, q=search.suggestion, offset=None)
        if search and search.suggestion
        else "",
        "next_url": url_with(request, offset=offset + len(page.items)) if page.has_more else "",
    }
    if not request.htmx:
        context |= _side(whom)
    return page_or_partial(request, TEMPLATE, "about-facts", context)


@console_view("POST")
def about_add(request, person: str):
    """Save a fact about the person, as them, in one bot's shard of their memory; a refusal is
    shown beside the form with the text kept."""
    viewer = viewer_of(request)
    whom = about_whom(viewer=viewer, person=person)
    form = AboutAddForm(request.POST)
    if form.is_valid():
        try:
            added = about_fact_add(
                viewer=viewer,
                person=whom,
                bot=form.cleaned_data["bot"],
                text=form.cleaned_data["text"],
            )
        except NotAllowed:
            raise
        except MemstoreError as error:
            form.add_error("text", error.message)
        else:
            messages.success(request, f"Saved for {added.bot}: {added.fact.body}")
            return redirect(person_urls(whom)["page"])
    page = about_facts(person=whom)
    today = timezone.localdate()
    context = {
        "person": whom,
        "own": whom == viewer.person,
        "urls": person_urls(whom),
        "q": "",
        "rows": [presenters.about_fact_view(item, today=today) for item in page.items],
        "summary": presenters.about_summary(page, ""),
        "next_url": "",
        "groupings": presenters.GROUPINGS,
        "add_form": form,
    } | _side(whom)
    return render(request, TEMPLATE, context, status=422)


def _side(person: str) -> dict:
    # The controls, their history and the bots: the parts a search does not redraw.
    bots = bots_knowing(person=person)
    return {
        "controls": person_controls(person=person),
        "history": [presenters.control_change_text(c) for c in controls_history(person=person)],
        "bots": bots,
        "add_bots": [b.bot for b in bots],
        "forgotten": [
            presenters_forgotten.forgotten_view(f) for f in person_forgotten(person=person)
        ],
    }


@console_view("POST", fragment="web/about_me.html#controls-error")
def about_controls(request, person: str):
    """Pause or resume memory, exclude or allow a topic; applies from the next call."""
    viewer = viewer_of(request)
    whom = about_whom(viewer=viewer, person=person)
    form = ControlForm(request.POST)
    if not form.is_valid():
        raise InvalidTopic("Choose pause, resume, exclude or include.")
    action, topic = form.cleaned_data["action"], form.cleaned_data["topic"]
    if action in _CONTROLS:
        _CONTROLS[action](person=whom, by=viewer.person, via="console")
    else:
        _TOPICS[action](person=whom, topic=topic, by=viewer.person, via="console")
    if not request.htmx:
        messages.success(request, "Saved: it applies from the next call.")
        return redirect(person_urls(whom)["page"])
    context = {
        "person": whom,
        "own": whom == viewer.person,
        "urls": person_urls(whom),
        "saved": True,
    }
    context |= _side(whom)
    return render(request, f"{TEMPLATE}#controls", context)


@console_view("POST", fragment="web/bot.html#fact-gone")
def about_forget(request, person: str):
    """Forget a fact about the person in every bot's shard."""
    viewer = viewer_of(request)
    form = FactIdForm(request.POST)
    if not form.is_valid():
        raise FactNotFound("No such fact.")
    changes = forget_everywhere(viewer=viewer, person=person, fact_id=form.cleaned_data["id"])
    bots = sorted({location.shard.bot for c in changes if (location := locate(c.file))})
    message = f"Forgotten everywhere ({', '.join(bots)})."
    if not request.htmx:
        messages.success(request, message)
        return redirect(person_urls(person)["page"])
    return render(request, "web/bot.html#fact-gone", {"message": message})


@console_view("GET")
def about_export_file(request, person: str):
    """A zip of the Markdown files about the person and a JSON file of their facts' metadata."""
    whom = about_whom(viewer=viewer_of(request), person=person)
    response = HttpResponse(person_export(person=whom), content_type="application/zip")
    stamp = timezone.localdate().isoformat()
    response["Content-Disposition"] = f'attachment; filename="about-{whom}-{stamp}.zip"'
    return response


@console_view("GET")
def about_prompts(request, person: str):
    """For each bot that knows the person and each room kind, what of their memory its prompt
    would hold today, and why the rest stays out."""
    whom = about_whom(viewer=viewer_of(request), person=person)
    bots = bots_linked(person=whom)
    context = {
        "person": whom,
        "own": whom == viewer_of(request).person,
        "here": "prompts",
        "urls": person_urls(whom),
        "reaches": presenters.reach_views(prompt_reach(person=whom, bots=bots)),
    }
    return render(request, "web/about_prompts.html", context)


@console_view("POST")
def about_unlink(request, person: str):
    """Stop a bot acting for the person; what it wrote about them stays (forget it here)."""
    viewer = viewer_of(request)
    bot = request.POST.get("bot", "")
    unlinked = bot_unlink(viewer=viewer, person=person, bot=bot)
    if unlinked:
        messages.success(request, f"{bot} no longer acts for {person}; what it wrote stays.")
    return redirect(person_urls(about_whom(viewer=viewer, person=person))["page"])
