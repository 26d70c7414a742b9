"""The one error map: every failure becomes JSON `{code, message, detail}` with a fitting status.

Domain errors (memstore.errors) carry their own code and status; this module adds the API's own
edge cases (bad JSON, validation, authentication, unknown paths and methods, oversized bodies)
and a last-resort 500 that never leaks a traceback.
"""

import functools
import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError

from memoryconsole.api.schemas import ErrorOut
from memstore.errors import MemstoreError

log = logging.getLogger("memoryconsole.api")

DEFAULT_MAX_BODY = 256 * 1024
_HTTP_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found"}


def errors(*statuses: int) -> dict[int, type[ErrorOut]]:
    """The error responses an operation declares in the OpenAPI schema."""
    return dict.fromkeys(statuses, ErrorOut)


def max_body_bytes() -> int:
    """Largest request body the API reads (settings.API_MAX_BODY_BYTES)."""
    return getattr(settings, "API_MAX_BODY_BYTES", DEFAULT_MAX_BODY)


def error_response(
    status: int, code: str, message: str, detail: dict | None = None
) -> JsonResponse:
    """The JSON body every error has."""
    return JsonResponse({"code": code, "message": message, "detail": detail or {}}, status=status)


def install_error_map(api: NinjaAPI) -> None:
    """Register the handlers on the API, and refuse oversized bodies before anything reads them."""

    def handle(exc_class: type[Exception]) -> Callable:
        def register(func: Callable[[HttpRequest, Any], HttpResponse]) -> Callable:
            api.add_exception_handler(exc_class, lambda request, exc: func(request, exc))
            return func

        return register

    @handle(MemstoreError)
    def domain(request, exc: MemstoreError) -> HttpResponse:
        return error_response(exc.status, exc.code, exc.message, exc.detail)

    @handle(ValidationError)
    def invalid(request, exc: ValidationError) -> HttpResponse:
        problems = [_problem(e) for e in exc.errors]
        summary = "; ".join(f"{p['where']}: {p['message']}" for p in problems[:3])
        return error_response(
            422, "invalid_request", f"The request is not valid: {summary}", {"errors": problems}
        )

    @handle(AuthenticationError)
    def unauthenticated(request, exc: AuthenticationError) -> HttpResponse:
        response = error_response(
            401,
            "unauthorized",
            "Send a valid bot token: `Authorization: Bearer mct_…` "
            "(`manage.py bots token SLUG` prints one).",
        )
        response["WWW-Authenticate"] = 'Bearer realm="memory"'
        return response

    @handle(HttpError)
    def http(request, exc: HttpError) -> HttpResponse:
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        return error_response(exc.status_code, code, str(exc))

    @handle(Http404)
    def missing(request, exc: Http404) -> HttpResponse:
        return error_response(404, "not_found", "Not found.")

    @handle(RequestDataTooBig)
    def too_big(request, exc: RequestDataTooBig) -> HttpResponse:
        return _too_large()

    @handle(Exception)
    def crashed(request, exc: Exception) -> HttpResponse:
        log.exception("API call failed: %s %s", request.method, request.path)
        return error_response(500, "server_error", "Something went wrong on the server.")

    def refuse_big_bodies(run: Callable) -> Callable:
        # Runs before authentication and before anything reads the body.
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            limit = max_body_bytes()
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            if length > limit:
                return _too_large()
            if not length and request.META.get("wsgi.input_terminated"):
                # A chunked body has no Content-Length: read at most one byte past the limit.
                data = request.read(limit + 1)
                if len(data) > limit:
                    return _too_large()
                request._body = data  # what request.body returns from now on
            return run(request, *args, **kwargs)

        return checked

    api.add_decorator(refuse_big_bodies, mode="view")


def json_method_errors(urls: tuple) -> tuple:
    """The API's URL patterns, with "method not allowed" answered in JSON like every error
    (ninja answers it in plain text before any handler runs)."""
    patterns, app_name, namespace = urls
    for pattern in patterns:
        pattern.callback = _json_405(pattern.callback)
    return patterns, app_name, namespace


def _json_405(view: Callable) -> Callable:
    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = view(request, *args, **kwargs)
        if response.status_code == 405 and not response.get("Content-Type", "").endswith("json"):
            allowed = response.get("Allow", "")
            response = error_response(
                405,
                "method_not_allowed",
                f"{request.method} is not allowed here; use {allowed}.",
                {"allowed": [m.strip() for m in allowed.split(",") if m.strip()]},
            )
            response["Allow"] = allowed
        return response

    return wrapped


def api_not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Unknown paths under /api/ answer in JSON too."""
    return error_response(404, "not_found", f"No API endpoint at {request.path}.")


def _too_large() -> HttpResponse:
    limit = max_body_bytes()
    return error_response(
        413,
        "body_too_large",
        f"The request body is over {limit // 1024} KiB; this API refuses larger bodies.",
        {"limit_bytes": limit},
    )


def _problem(error: dict) -> dict:
    loc = [str(part) for part in error.get("loc", ())]
    if len(loc) > 1 and loc[0] == loc[1] == "body":  # ("body", <param named body>, field…)
        del loc[1]
    return {
        "where": ".".join(loc) or "request",
        "message": str(error.get("msg", "is not valid")),
        "type": str(error.get("type", "")),
    }
