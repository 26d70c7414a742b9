"""What every console view shares: the decorator each wears (login, methods, the error policy,
the bot named in the URL), who is looking, whether htmx wants a partial, and links that keep
the current query."""

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from memoryconsole.web.errors import ERROR_FRAGMENT, console_errors
from memstore.console.facts import bot_exists
from memstore.console.viewer import Viewer
from memstore.errors import InvalidName, UnknownBot
from memstore.registry.people import console_account


def viewer_of(request: HttpRequest) -> Viewer:
    """The person looking, as the console's selectors know them (once per request): their
    registered person name, staff or not, the bots they are an editor of, and the rooms that
    are private conversations."""
    cached = getattr(request, "_viewer", None)
    if cached is None:
        person, editor_of, private = console_account(username=request.user.get_username())
        cached = Viewer(
            person=person, staff=request.user.is_staff, editor_of=editor_of, private_rooms=private
        )
        request._viewer = cached  # type: ignore[attr-defined]
    return cached


def wants_partial(request: HttpRequest) -> bool:
    """Whether htmx asks for a partial (a history restore after Back wants the whole page)."""
    return bool(request.htmx) and not request.htmx.history_restore_request


def known_bot(bot: str) -> str:
    """The bot named in the URL, if it has memory or is registered (UnknownBot otherwise)."""
    try:
        if bot_exists(bot):
            return bot
    except InvalidName:
        pass
    raise UnknownBot("No such bot.")


def page_or_partial(request: HttpRequest, template: str, part: str, context: dict) -> HttpResponse:
    """The whole page, or for htmx its named partial `part`."""
    name = f"{template}#{part}" if wants_partial(request) else template
    return render(request, name, context)


def url_with(request: HttpRequest, **params) -> str:
    """This page's URL with some query parameters changed (a value of None or "" drops it)."""
    query = request.GET.copy()
    for key, value in params.items():
        query.pop(key, None)
        if value not in (None, ""):
            query[key] = str(value)
    return f"{request.path}?{query.urlencode()}"


def console_view(*methods: str, fragment: str = ERROR_FRAGMENT, vary: bool = False):
    """What every console view wears: login required, only these HTTP methods, `Vary:
    HX-Request` when htmx gets a partial of the same URL, the bot in the URL checked (UnknownBot
    if there is none such), and the console's one error policy (`console_errors`)."""

    def decorate(view: Callable) -> Callable:
        @wraps(view)
        def with_bot(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if "bot" in kwargs:
                kwargs["bot"] = known_bot(kwargs["bot"])
            return view(request, *args, **kwargs)

        wrapped = console_errors(with_bot, fragment=fragment)
        if vary:
            wrapped = vary_on_headers("HX-Request")(wrapped)
        return login_required(require_http_methods(list(methods))(wrapped))

    return decorate
