"""OAuth 2.1 for /mcp, the HTTP side (the MCP authorization spec): protected resource metadata
(RFC 9728), authorization server metadata (RFC 8414), dynamic client registration (RFC 7591),
the token endpoint (authorization code with PKCE, refresh) and revocation (RFC 7009).

Thin: each view parses the request, calls one `memstore.registry.oauth` function and answers
JSON. The consent page, where a person signs in and allows a client, is a console page
(`memoryconsole.web.views.consent`). The metadata and token endpoints answer CORS preflights so
browser-based MCP clients can use them.

Registration, token and revocation are open to anyone, so each is rate limited per client
address (settings.OAUTH_RATE_LIMITS): past the limit they answer 429 `too_many_requests` with
Retry-After, before reading the request.
"""

import base64
import json
from binascii import Error as Base64Error
from collections.abc import Callable
from urllib.parse import unquote

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt

from memoryconsole.api.body_limit import body_check
from memoryconsole.api.errors import EdgeError
from memoryconsole.mcp.tools import TOOL_SCOPES, server
from memoryconsole.web.lockout import request_client_address
from memstore.errors import OAuthRefused
from memstore.registry.oauth import code_exchange, token_refresh, token_revoke_any
from memstore.registry.oauth_clients import READ, SCOPES, WRITE, client_register
from memstore.registry.rate_limits import rate_hit

_FORM_LIMIT = 64 * 1024


def issuer_of(request: HttpRequest) -> str:
    """This server's address, as the issuer and the base of every OAuth endpoint."""
    return request.build_absolute_uri("/").rstrip("/")


def resource_of(request: HttpRequest) -> str:
    """The MCP endpoint's canonical URI: what tokens are issued for (RFC 8707)."""
    return issuer_of(request) + reverse("mcp")


def challenge(request: HttpRequest, *, error: str = "") -> str:
    """The `WWW-Authenticate` value of a refused /mcp call: where the resource metadata is."""
    metadata = issuer_of(request) + "/.well-known/oauth-protected-resource" + reverse("mcp")
    parts = [f'resource_metadata="{metadata}"', f'scope="{" ".join(SCOPES)}"']
    if error:
        parts.insert(0, f'error="{error}"')
    return "Bearer " + ", ".join(parts)


def missing_scope(granted: frozenset[str], body: bytes) -> tuple[str, str] | None:
    """(scope, what it allows) when this JSON-RPC message reads a resource or calls a tool
    `granted` lacks."""
    message = _message(body)
    if message.get("method") == "resources/read":  # the note and the section: reading
        return None if READ in granted else (READ, f"read resources ({SCOPES[READ].lower()})")
    name = tool_called(body)
    needed = scope_needed(name) if name else None
    if needed is None or needed in granted:
        return None
    return needed, f"call {name} ({SCOPES[needed].lower()})"


def _message(body: bytes) -> dict:
    try:
        message = json.loads(body)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}


def tool_called(body: bytes) -> str | None:
    """The tool this JSON-RPC message calls, or None when it calls none."""
    message = _message(body)
    if message.get("method") != "tools/call":
        return None
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    return name if isinstance(name, str) else None


def server_tool_names() -> frozenset[str]:
    """The name of every tool the server registered."""
    return frozenset(tool.name for tool in server._tool_manager.list_tools())


def scope_needed(tool: str) -> str | None:
    """The grant a tool needs: its TOOL_SCOPES entry; a registered tool missing from it needs
    memory:write (a new tool is never open to a read-only caller by omission); None for a
    name that is no tool (the SDK answers that)."""
    if tool in TOOL_SCOPES:
        return TOOL_SCOPES[tool]
    return WRITE if tool in server_tool_names() else None


def _cors(view: Callable) -> Callable:
    """Answer preflights and let any origin read the answer (no cookies are involved)."""

    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.method == "OPTIONS":
            response = HttpResponse(status=204)
        else:
            response = view(request, *args, **kwargs)
        response["Access-Control-Allow-Origin"] = "*"
        response["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
        response["Access-Control-Allow-Headers"] = (
            "Authorization, Content-Type, MCP-Protocol-Version"
        )
        return response

    wrapped.__doc__ = view.__doc__
    return csrf_exempt(wrapped)


def _only(request: HttpRequest, method: str) -> JsonResponse | None:
    if request.method == method:
        return None
    return _error(
        OAuthRefused("invalid_request", f"Use {method} here.", status=405), {"Allow": method}
    )


@_cors
def protected_resource(request: HttpRequest) -> HttpResponse:
    """RFC 9728 metadata of /mcp: which authorization server signs clients in, which scopes."""
    return _only(request, "GET") or JsonResponse(
        {
            "resource": resource_of(request),
            "authorization_servers": [issuer_of(request)],
            "scopes_supported": list(SCOPES),
            "bearer_methods_supported": ["header"],
            "resource_name": "Memory Console",
        }
    )


@_cors
def authorization_server(request: HttpRequest) -> HttpResponse:
    """RFC 8414 metadata: the endpoints, and what this server supports (public clients, S256)."""
    base = issuer_of(request)
    return _only(request, "GET") or JsonResponse(
        {
            "issuer": base,
            "authorization_endpoint": base + reverse("oauth_authorize"),
            "token_endpoint": base + reverse("oauth_token"),
            "registration_endpoint": base + reverse("oauth_register"),
            "revocation_endpoint": base + reverse("oauth_revoke"),
            "scopes_supported": list(SCOPES),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_methods_supported": ["none"],
            "revocation_endpoint_auth_methods_supported": ["none"],
            "code_challenge_methods_supported": ["S256"],
        }
    )


@_cors
def register(request: HttpRequest) -> HttpResponse:
    """RFC 7591: a client registers its redirect URIs and gets a client_id (201)."""
    refused = _only(request, "POST") or _too_fast(request, "register") or _too_big(request)
    if refused:
        return refused
    try:
        metadata = json.loads(request.body or b"null")
    except ValueError:
        metadata = None
    if not isinstance(metadata, dict):
        return _error(
            OAuthRefused("invalid_client_metadata", "Send the metadata as a JSON object.")
        )
    try:
        client = client_register(metadata=metadata)
    except OAuthRefused as exc:
        return _error(exc)
    return JsonResponse(client.registration(), status=201, headers={"Cache-Control": "no-store"})


@_cors
def token(request: HttpRequest) -> HttpResponse:
    """The token endpoint: grant_type authorization_code (with the PKCE verifier) or
    refresh_token (answers a new refresh token; the one sent is spent)."""
    refused = _only(request, "POST") or _too_fast(request, "token") or _too_big(request)
    if refused:
        return refused
    form = request.POST
    client_id = _client_id(request)
    grant_type = form.get("grant_type", "")
    try:
        if grant_type == "authorization_code":
            pair = code_exchange(
                client_id=client_id,
                code=_required(form, "code"),
                redirect_uri=_required(form, "redirect_uri"),
                verifier=_required(form, "code_verifier"),
                resource=form.get("resource", ""),
            )
        elif grant_type == "refresh_token":
            pair = token_refresh(
                client_id=client_id,
                refresh_token=_required(form, "refresh_token"),
                resource=form.get("resource", ""),
            )
        else:
            raise OAuthRefused(
                "unsupported_grant_type",
                "grant_type must be authorization_code or refresh_token.",
            )
    except OAuthRefused as exc:
        return _error(exc)
    return JsonResponse(pair.body(), headers={"Cache-Control": "no-store", "Pragma": "no-cache"})


@_cors
def revoke(request: HttpRequest) -> HttpResponse:
    """RFC 7009: revoke an access or refresh token (200 even when it was unknown)."""
    refused = _only(request, "POST") or _too_fast(request, "revoke") or _too_big(request)
    if refused:
        return refused
    try:
        token_revoke_any(token=_required(request.POST, "token"), client_id=_client_id(request))
    except OAuthRefused as exc:
        return _error(exc)
    return HttpResponse(status=200, headers={"Cache-Control": "no-store"})


def _client_id(request: HttpRequest) -> str:
    """client_id from the form, or from HTTP Basic (a secret, if any, is not checked: every
    client here is public and proves itself with PKCE)."""
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "basic":
        try:
            return unquote(base64.b64decode(value).decode().partition(":")[0])
        except (Base64Error, UnicodeDecodeError):
            return ""
    return request.POST.get("client_id", "")


def _required(form, name: str) -> str:
    value = form.get(name, "")
    if not value:
        raise OAuthRefused("invalid_request", f"{name} is required.")
    return value


def _too_fast(request: HttpRequest, endpoint: str) -> JsonResponse | None:
    limit, window = settings.OAUTH_RATE_LIMITS[endpoint]
    address = request_client_address(request) or "unknown"
    wait = rate_hit(bucket=endpoint, address=address, limit=limit, window=window)
    if not wait:
        return None
    refused = OAuthRefused(
        "too_many_requests",
        f"Too many {endpoint} requests from {address}: at most {limit} in {window} seconds. "
        f"Try again in {wait} seconds.",
        status=429,
    )
    return _error(refused, {"Retry-After": str(wait)})


def _too_big(request: HttpRequest) -> JsonResponse | None:
    try:
        body_check(request, limit=_FORM_LIMIT)
    except EdgeError as exc:
        return _error(OAuthRefused("invalid_request", exc.message, status=exc.status))
    return None


def _error(exc: OAuthRefused, headers: dict[str, str] | None = None) -> JsonResponse:
    body = {"error": exc.error, "error_description": exc.message}
    return JsonResponse(
        body, status=exc.status, headers={"Cache-Control": "no-store", **(headers or {})}
    )
