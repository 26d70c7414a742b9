"""The console's one error policy: every view wears `console_errors`, so a domain error gives the
same answer everywhere (the console's twin of the API's exception handlers).

The status is the error's own (`memstore.errors`: NotAllowed 403, FactNotFound and UnknownBot
404, EditConflict and UnreadableFile 409, refusals 422) and the message is the error's, written
for a person. An htmx request gets a fragment that fits where it swaps (the view names it: a
fact row's `<li>`, a list keeping its id); a full page gets the console's error page. Responses
carry `X-Console-Error` so htmx swaps them whatever the status (see static/web/console.js).

A lost database is answered by `DatabaseUnavailableMiddleware` (any view) and `server_error`
(Django's last resort, for the rest): a styled 503 page rendered without the request's context
processors (they read the database too), with Retry-After.
"""

import sys
from collections.abc import Callable
from functools import wraps

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, HttpResponseServerError
from django.shortcuts import render
from django.template import loader

from memoryconsole.api.errors import RETRY_AFTER_SECONDS
from memoryconsole.web.presenters.common import error_title
from memstore.errors import MemstoreError

ERROR_FRAGMENT = "web/error.html#error-fragment"
ERROR_HEADER = "X-Console-Error"


def error_response(request: HttpRequest, error: MemstoreError, fragment: str) -> HttpResponse:
    """The console's answer to a domain error: its status and message, as a fragment for htmx
    or a full page."""
    status = error.status
    context = {
        "message": error.message,
        "error": error.message,
        "code": error.code,
        "status": status,
        "title": error_title(error.code, status),
        "target": (request.htmx.target or "") if request.htmx else "",
    }
    partial = request.htmx and not request.htmx.history_restore_request
    template = fragment if partial else "web/error.html"
    response = render(request, template, context, status=status)
    response[ERROR_HEADER] = error.code
    return response


def console_errors(view: Callable | None = None, *, fragment: str = ERROR_FRAGMENT):
    """Answer every MemstoreError a view raises by the console's error policy; `fragment` is the
    named partial an htmx request gets (it is given `message`, `error`, `status`, `target`)."""

    def decorate(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            try:
                return view(request, *args, **kwargs)
            except MemstoreError as error:
                return error_response(request, error, fragment)

        wrapper.console_errors = True  # kept by the decorators outside (functools.wraps)
        return wrapper

    return decorate(view) if view is not None else decorate


_DATABASE_ERRORS = (OperationalError, InterfaceError)


def database_unavailable_response(request: HttpRequest) -> HttpResponse:
    """The console's styled 503 page for a database it can't reach (no database needed)."""
    context = {
        "title": "The database is unavailable",
        "message": "The console could not reach its database, so this page can't be shown "
        "right now. Nothing was changed.",
        "code": "database_unavailable",
        "path": request.get_full_path(),
    }
    response = HttpResponse(loader.render_to_string("503.html", context), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response[ERROR_HEADER] = "database_unavailable"
    return response


class DatabaseUnavailableMiddleware:
    """Any view that loses the database answers the styled 503 page, not Django's 500."""

    def __init__(self, get_response: Callable) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception):
        if isinstance(exception, _DATABASE_ERRORS):
            return database_unavailable_response(request)
        return None


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's handler500: the 503 page when the failure was the database, else 500.html."""
    if isinstance(sys.exc_info()[1], _DATABASE_ERRORS):
        return database_unavailable_response(request)
    return HttpResponseServerError(loader.render_to_string("500.html"))
