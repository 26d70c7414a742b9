"""The one error map: every failure becomes JSON `{code, message, detail}` with a fitting status.

Ninja's own exception handlers, stacked on the API (`install_error_map`). Domain errors
(memstore.errors) carry their own code and status; `EdgeError` and its kinds below are the API's
own refusals (unknown paths, methods and query parameters, oversized or unmeasurable bodies), raised or handed to
`api.on_exception` by the code that spots them, so they are answered here too. Bad JSON,
validation, authentication and a last-resort 500 that never leaks a traceback complete the map.
This module decides statuses and wording; it does not detect anything itself.
"""

import logging
from collections.abc import Callable

import psycopg
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError
from procrastinate.exceptions import ConnectorException

from memoryconsole.api.schemas import ErrorOut
from memstore.errors import DatabaseUnavailable, MemstoreError
from memstore.invocation import manage_command

log = logging.getLogger("memoryconsole.api")

_HTTP_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found"}
RETRY_AFTER_SECONDS = 2  # a 503's Retry-After: an embedded Postgres is back within ~2 s


def database_unavailable() -> DatabaseUnavailable:
    """The error a lost database connection is answered with (the API's and MCP's words)."""
    return DatabaseUnavailable(
        "The database is unavailable right now; nothing was changed. The server reconnects "
        f"by itself: retry in {RETRY_AFTER_SECONDS} seconds."
    )


class EdgeError(MemstoreError):
    """A refusal of the API itself, not of memstore: shaped like a domain error (code, status,
    message, detail) so the same handler answers both."""

    code = "bad_request"
    status = 400


class NoEndpoint(EdgeError):
    """No API operation at this path (any method)."""

    code = "not_found"
    status = 404


class MethodNotAllowed(EdgeError):
    """The path exists, the method doesn't; `detail['allowed']` lists the ones that do."""

    code = "method_not_allowed"
    status = 405


class LengthRequired(EdgeError):
    """A chunked body the server in front of Django can't hand over (no Content-Length)."""

    code = "length_required"
    status = 411


class BodyTooLarge(EdgeError):
    """The body is over settings.API_MAX_BODY_BYTES."""

    code = "body_too_large"
    status = 413

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"The request body is over {limit // 1024} KiB; this API refuses larger bodies.",
            detail={"limit_bytes": limit},
        )


class UnknownParameter(EdgeError):
    """Query parameters the operation does not take; `detail` names them and the known ones,
    with `errors` shaped like a validation error's so a client reads both alike."""

    code = "invalid_request"
    status = 422

    def __init__(self, unknown: list[str], known: list[str]) -> None:
        takes = f"it takes {', '.join(known)}" if known else "it takes no query parameters"
        noun = "parameter" if len(unknown) == 1 else "parameters"
        super().__init__(
            f"Unknown query {noun} {', '.join(unknown)}: this endpoint ignores nothing, and {takes}.",
            detail={
                "unknown": unknown,
                "known": known,
                "errors": [
                    {
                        "where": f"query.{name}",
                        "message": "is not a parameter of this endpoint",
                        "type": "extra_forbidden",
                    }
                    for name in unknown
                ],
            },
        )


def errors(*statuses: int) -> dict[int, type[ErrorOut]]:
    """The error responses an operation declares in the OpenAPI schema."""
    return dict.fromkeys(statuses, ErrorOut)


def install_error_map(api: NinjaAPI) -> None:
    """Register the handlers on the API (ninja picks the most specific class of an exception)."""

    def reply(request: HttpRequest, status: int, code: str, message: str, detail=None):
        body = {"code": code, "message": message, "detail": detail or {}}
        return api.create_response(request, body, status=status)

    @api.exception_handler(MemstoreError)
    def known(request: HttpRequest, exc: MemstoreError) -> HttpResponse:
        response = reply(request, exc.status, exc.code, exc.message, exc.detail)
        if isinstance(exc, MethodNotAllowed):
            response["Allow"] = ", ".join(exc.detail["allowed"])
        if exc.status == 503:
            response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response

    @api.exception_handler(OperationalError)
    @api.exception_handler(InterfaceError)
    def database_down(request: HttpRequest, exc: Exception) -> HttpResponse:
        # The connection is lost or can't be opened (a query error is a ProgrammingError, a
        # bug: the 500 below). Django drops the broken connection at the request's end.
        log.warning("database unavailable: %s %s: %s", request.method, request.path, exc)
        return known(request, database_unavailable())

    @api.exception_handler(ConnectorException)
    def queue_down(request: HttpRequest, exc: ConnectorException) -> HttpResponse:
        # The queue (procrastinate, on the same Postgres) raises its own error, the driver's
        # under it: a lost connection while queueing is the same outage as above; anything
        # else the queue failed at is the 500 below.
        if isinstance(exc.__cause__, psycopg.OperationalError | psycopg.InterfaceError):
            return database_down(request, exc.__cause__)
        return crashed(request, exc)

    _install_request_errors(api, reply, known)

    @api.exception_handler(Exception)
    def crashed(request: HttpRequest, exc: Exception) -> HttpResponse:
        log.exception("API call failed: %s %s", request.method, request.path)
        return reply(request, 500, "server_error", "Something went wrong on the server.")


def _install_request_errors(api: NinjaAPI, reply: Callable, known: Callable) -> None:
    # The handlers of a request the API refuses (invalid, unauthenticated, not found, too big),
    # answering through `install_error_map`'s `reply` and `known`.

    @api.exception_handler(ValidationError)
    def invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
        problems = [_problem(e) for e in exc.errors]
        summary = "; ".join(f"{p['where']}: {p['message']}" for p in problems[:3])
        message = f"The request is not valid: {summary}"
        return reply(request, 422, "invalid_request", message, {"errors": problems})

    @api.exception_handler(AuthenticationError)
    def unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
        message = (
            "Send a valid bot token: `Authorization: Bearer mct_…` "
            f"(`{manage_command('bots', 'token', 'SLUG')}` prints one)."
        )
        response = reply(request, 401, "unauthorized", message)
        response["WWW-Authenticate"] = 'Bearer realm="memory"'
        return response

    @api.exception_handler(HttpError)
    def http(request: HttpRequest, exc: HttpError) -> HttpResponse:
        return reply(
            request, exc.status_code, _HTTP_CODES.get(exc.status_code, "http_error"), str(exc)
        )

    @api.exception_handler(Http404)
    def missing(request: HttpRequest, exc: Http404) -> HttpResponse:
        return reply(request, 404, "not_found", "Not found.")

    @api.exception_handler(RequestDataTooBig)
    def too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
        # Django's own cap (DATA_UPLOAD_MAX_MEMORY_SIZE), when it is below the API's.
        return known(request, BodyTooLarge(settings.DATA_UPLOAD_MAX_MEMORY_SIZE))


def _problem(error: dict) -> dict:
    loc = [str(part) for part in error.get("loc", ())]
    if len(loc) > 1 and loc[0] == loc[1] == "body":  # ("body", <param named body>, field…)
        del loc[1]
    return {
        "where": ".".join(loc) or "request",
        "message": str(error.get("msg", "is not valid")).removeprefix("Value error, "),
        "type": str(error.get("type", "")),
    }
