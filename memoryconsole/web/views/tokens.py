"""A new bot (staff), a bot's tokens (staff: create with its grants, name, list with last use,
revoke; a new token is shown once), its project memberships (read, or read and write), and how to
connect a bot (curl and Python, filled in for this bot and this server)."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render

from memoryconsole.web.forms import BotForm, MembershipForm, TokenForm
from memoryconsole.web.presenters import tokens as presenters
from memoryconsole.web.views.common import console_view, viewer_of
from memstore.console.plugins import plugin_bundle
from memstore.console.tokens import (
    MEMBERSHIP_LABELS,
    connect_person,
    console_bot_create,
    console_membership_set,
    console_memberships,
    console_token_create,
    console_token_of,
    console_token_revoke,
    console_tokens,
)
from memstore.errors import InvalidName, NotAllowed


@console_view("GET", "POST")
def new_bot_page(request):
    """GET: the form (staff). POST: register the bot, then on to its tokens page to make its
    first token; a taken or malformed slug is said beside the field."""
    form = BotForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            bot = console_bot_create(
                viewer=viewer_of(request), slug=data["slug"], name=data["name"], app=data["app"]
            )
        except InvalidName as error:
            form.add_error("slug", str(error))
        else:
            messages.success(request, f"Registered {bot.title}. Make its first token below.")
            return redirect("web:tokens", bot=bot.slug)
    elif not viewer_of(request).staff:
        raise NotAllowed("Only staff register bots.")
    return render(request, "web/bot_new.html", {"form": form})


@console_view("GET", "POST")
def tokens_page(request, bot: str):
    """GET: the bot's tokens. POST: a new one, shown once on this response only."""
    viewer = viewer_of(request)
    new = None
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        new = console_token_create(viewer=viewer, bot=bot, name=data["name"], scopes=data["scopes"])
        form = TokenForm()
    context = {
        "bot": bot,
        "here": "tokens",
        "form": form,
        "new": new,
        "tokens": console_tokens(viewer=viewer, bot=bot),
        "memberships": console_memberships(viewer=viewer, bot=bot),
        "membership_form": MembershipForm(),
        "snippets": presenters.connect_snippets(
            base=request.build_absolute_uri("/").rstrip("/"),
            token=new.token if new else "",
            person=connect_person(viewer=viewer, bot=bot),
        ),
    }
    response = render(request, "web/tokens.html", context)
    response["Cache-Control"] = "no-store"  # a token shown once must not sit in a cache
    return response


@console_view("POST")
def set_membership(request, bot: str):
    """Put the bot in a project, or change what it may do there (read, read and write)."""
    form = MembershipForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Name a project (letters, digits, '-') and read or read_write.")
        return redirect("web:tokens", bot=bot)
    project, access = form.cleaned_data["project"], form.cleaned_data["access"]
    joined = console_membership_set(
        viewer=viewer_of(request), bot=bot, project=project, access=access
    )
    done = "joined" if joined else "is in"
    messages.success(
        request, f"{bot} {done} project {project}: it may {MEMBERSHIP_LABELS[access]}."
    )
    return redirect("web:tokens", bot=bot)


@console_view("POST")
def revoke_token(request, bot: str):
    """Revoke one of the bot's tokens by its prefix, once the person confirmed (irreversible:
    the first POST asks, with Cancel the focused answer)."""
    if request.POST.get("confirmed") != "1":
        token = console_token_of(
            viewer=viewer_of(request), bot=bot, prefix=request.POST.get("prefix", "")
        )
        return render(request, "web/token_revoke.html", {"bot": bot, "prefix": token.prefix})
    info = console_token_revoke(
        viewer=viewer_of(request), bot=bot, prefix=request.POST.get("prefix", "")
    )
    messages.success(request, presenters.revoked_message(info))
    return redirect("web:tokens", bot=bot)


@console_view("GET")
def plugin_download(request, bot: str):
    """The plugin bundle for coding agents, made for this server's address."""
    server = request.build_absolute_uri("/").rstrip("/")
    response = HttpResponse(plugin_bundle(server=server, bot=bot), content_type="application/zip")
    response["Content-Disposition"] = 'attachment; filename="memory-console-plugins.zip"'
    return response


@console_view("GET")
def connect_page(request, bot: str):
    """How to connect this bot: the API's address, a token, curl and Python, filled in."""
    context = {
        "bot": bot,
        "here": "connect",
        "snippets": presenters.connect_snippets(
            base=request.build_absolute_uri("/").rstrip("/"),
            person=connect_person(viewer=viewer_of(request), bot=bot),
        ),
    }
    return render(request, "web/connect.html", context)
