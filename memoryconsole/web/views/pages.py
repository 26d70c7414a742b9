"""A bot's read-only pages: the prompt preview, what the learner did, and the memory files."""

from django.shortcuts import render

from memoryconsole.web.forms import LearningForm, PromptForm
from memoryconsole.web.presenters import files as files_views
from memoryconsole.web.presenters import home, prompt
from memoryconsole.web.views.common import console_view, page_or_partial, url_with, viewer_of
from memstore.console.files import bot_files, file_view
from memstore.console.learning import bot_learning
from memstore.console.preview import hidden_counts, preview_choices, prompt_preview
from memstore.errors import PersonNotLinked, PersonUnknown


@console_view("GET", fragment="web/prompt.html#preview", vary=True)
def prompt_page(request, bot: str):
    """What the bot's prompt memory section would hold in a chosen room, block by block."""
    viewer = viewer_of(request)
    choices = preview_choices(bot=bot, viewer=viewer)
    data = request.GET if "kind" in request.GET else {"kind": "direct", "person": viewer.person}
    form = PromptForm(data, projects=choices.projects, people=choices.people)
    answer, error = None, ""
    if form.is_valid():
        d = form.cleaned_data
        try:
            answer = prompt_preview(
                bot=bot,
                viewer=viewer,
                kind=d["kind"],
                person=d["person"],
                room=d["room"],
                projects=d["projects"],
                as_of=d["as_of"],
            )
        except (PersonNotLinked, PersonUnknown) as refused:
            error = prompt.prompt_refused(refused)
    section = answer.section if answer else None
    context = {
        "bot": bot,
        "here": "prompt",
        "form": form,
        "choices": choices,
        "answer": answer,
        "error": error,
        "section": section,
        "blocks": prompt.prompt_blocks(
            section,
            hidden_counts(scopes=[b.scope for b in section.blocks]) if section else None,
        ),
        "freshness": prompt.prompt_freshness(answer.stale, answer.memory) if answer else "",
        "size": prompt.prompt_size(answer.text) if answer else "",
    }
    return page_or_partial(request, "web/prompt.html", "preview", context)


@console_view("GET", vary=True)
def learning_page(request, bot: str):
    """What the learner did for this bot (saved, removed, skipped, refused, failed), newest first."""
    form = LearningForm(request.GET)
    form.is_valid()
    kind, offset = form.cleaned_data.get("kind") or "", form.cleaned_data.get("offset") or 0
    view = bot_learning(bot=bot, viewer=viewer_of(request), kind=kind, offset=offset)
    more = url_with(request, offset=offset + len(view.page.items)) if view.page.has_more else ""
    context = {
        "bot": bot,
        "here": "learning",
        "view": view,
        "kinds": home.learning_kinds(view.kinds),
        "warn_kinds": home.WARN_KINDS,
        "kind": kind,
        "more_url": more,
    }
    return page_or_partial(request, "web/learning.html", "activity", context)


@console_view("GET")
def files_page(request, bot: str):
    """The bot's memory files, or one of them line by line (prose kept, skipped lines marked)."""
    viewer = viewer_of(request)
    path = request.GET.get("path", "")
    context = {"bot": bot, "here": "files"}
    if not path:
        files = files_views.file_rows(bot_files(bot=bot, viewer=viewer))
        return render(request, "web/files.html", context | {"files": files})
    view = file_view(viewer=viewer, path=path)
    notes = files_views.file_notes(view)
    return render(request, "web/files.html", context | {"file": view, "notes": notes})
