"""The HTTP side of `/metrics`: a middleware that counts and times every request, and the view
Prometheus scrapes (staff signed in to the console, or `Authorization: Bearer $METRICS_TOKEN`).
What is measured and how it adds up across workers is `memstore.metrics` / `memstore.upkeep.scrape`.
"""

import hmac
import time

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from memstore.metrics import request_observed
from memstore.upkeep.scrape import CONTENT_TYPE, metrics_text

# Path prefix -> surface. An MCP client's sign-in (the OAuth metadata, registration, the
# consent page, tokens) is its own surface: counted as the console, it hid the console's figures.
_SURFACES = (
    ("/api/", "api"),
    ("/mcp", "mcp"),
    ("/oauth/", "oauth"),
    ("/.well-known/oauth-", "oauth"),
    ("/static/", "static"),
)


def _surface(path: str) -> str:
    for prefix, surface in _SURFACES:
        if path.startswith(prefix):
            return surface
    return "metrics" if path == "/metrics" else "console"


class RequestMetricsMiddleware:
    """Counts each answered request and its duration (first in MIDDLEWARE, so it times them all)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        view = (match.url_name or match.view_name) if match is not None else "unmatched"
        request_observed(
            _surface(request.path),
            view or "unnamed",
            request.method if request.method in _METHODS else "other",
            response.status_code,
            time.perf_counter() - started,
        )
        return response


_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})


@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    """Prometheus text for staff or the metrics token; 401 saying how, otherwise."""
    if not _allowed(request):
        response = HttpResponse(
            "Send `Authorization: Bearer <METRICS_TOKEN>` (set METRICS_TOKEN on the server), "
            "or sign in to the console as staff.\n",
            status=401,
            content_type="text/plain; charset=utf-8",
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(metrics_text(), content_type=CONTENT_TYPE)


def _allowed(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    sent = request.headers.get("Authorization", "")
    if token and sent.startswith("Bearer "):
        return hmac.compare_digest(sent.removeprefix("Bearer ").strip().encode(), token.encode())
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated and user.is_staff)
