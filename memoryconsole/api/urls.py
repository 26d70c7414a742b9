"""The API's URL patterns: ninja's operations, then a catch-all for every other path under
/api/, so that a wrong method or an unknown path (any method, a trailing slash included) is
answered by the error map like every other error, never by Django's HTML pages."""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.urls import re_path
from django.views.decorators.csrf import csrf_exempt

from memoryconsole.api import api
from memoryconsole.api.errors import MethodNotAllowed, NoEndpoint


def _json_405(view: Callable) -> Callable:
    # ninja answers a wrong method in plain text before any exception handler runs.
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = view(request, *args, **kwargs)
        if not isinstance(response, HttpResponseNotAllowed):
            return response
        allowed = sorted(m.strip() for m in response["Allow"].split(",") if m.strip())
        message = f"{request.method} is not allowed here; use {', '.join(allowed)}."
        return api.on_exception(request, MethodNotAllowed(message, detail={"allowed": allowed}))

    return wrapped


@csrf_exempt  # a bot's POST to a wrong path gets the JSON 404, not the CSRF page
def no_endpoint(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Any method on a path under /api/ that no operation serves."""
    message = f"No API endpoint at {request.path}."
    if request.path.endswith("/") and rest:
        message += " API paths have no trailing slash."
    return api.on_exception(request, NoEndpoint(message))


patterns, app_name, _ = api.urls
for pattern in patterns:
    # ninja's "api-root" (kept by name: ninja reverses it for the schema's paths) only raises
    # an HTML 404.
    root = pattern.name == "api-root"
    pattern.callback = no_endpoint if root else _json_405(pattern.callback)
urlpatterns = [*patterns, re_path(r"^(?P<rest>.*)$", no_endpoint)]
