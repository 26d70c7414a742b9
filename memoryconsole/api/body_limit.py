"""The body-size guard: no API call reads a body over settings.API_MAX_BODY_BYTES.

Runs before authentication and before anything parses the body. A body with a Content-Length
is judged by that header without reading it. A chunked body (Transfer-Encoding: chunked, no
Content-Length) has no size until it is read: Django would hand it over as empty, so the guard
reads it here, at most one byte past the limit, from the de-chunked stream the WSGI server
provides (gunicorn marks it with `wsgi.input_terminated`). A server that can't de-chunk
(Django's runserver) gets 411 instead of an empty body. Refusals go through the error map.
"""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI

from memoryconsole.api.errors import BodyTooLarge, EdgeError, LengthRequired


def max_body_bytes() -> int:
    """Largest request body the API reads (settings.API_MAX_BODY_BYTES)."""
    return settings.API_MAX_BODY_BYTES


def body_limit(api: NinjaAPI) -> Callable[[Callable], Callable]:
    """A ninja view decorator (`api.add_decorator(body_limit(api), mode="view")`)."""

    def decorator(run: Callable) -> Callable:
        @wraps(run)
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            try:
                body_check(request, limit=max_body_bytes())
            except EdgeError as exc:
                return api.on_exception(request, exc)
            return run(request, *args, **kwargs)

        return checked

    return decorator


def body_check(request: HttpRequest, *, limit: int) -> None:
    """Raise BodyTooLarge if the body is over `limit` bytes; a chunked body is read (and kept
    as request.body) to find out. LengthRequired if a chunked body can't be read."""
    length = _content_length(request)
    if length is not None:
        if length > limit:
            raise BodyTooLarge(limit)
        return
    if "chunked" not in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
        return
    if not request.META.get("wsgi.input_terminated"):
        raise LengthRequired(
            "This server can't read a chunked body: send a Content-Length header.",
        )
    # Django sized its own stream by the missing Content-Length (0 bytes); read the server's.
    data = request.META["wsgi.input"].read(limit + 1)
    if len(data) > limit:
        raise BodyTooLarge(limit)
    request._body = data  # what request.body returns from now on


def _content_length(request: HttpRequest) -> int | None:
    try:
        return int(request.META["CONTENT_LENGTH"])
    except (KeyError, ValueError):
        return None
