"""Streamable HTTP at /mcp: one Django view that checks the caller's bearer token (a bot token,
or an OAuth access token issued for this endpoint), then lets the official MCP SDK answer the
request. Without a valid token it answers 401 with `WWW-Authenticate: Bearer
resource_metadata=…` (the MCP authorization spec: where to discover how to sign in); an OAuth
token without the scope a tool needs gets 403 `insufficient_scope`, a bot token without the
grant 403 `missing_grant`.

Why a Django view and not the SDK's Starlette app: the app runs under gunicorn's synchronous
workers, and a Django view keeps one process model, one URL map, one body-size limit and the
request's own database connection. The SDK serves the request in its stateless, JSON-response
mode (every POST is self-contained: no session to keep between workers or hosts, no
server-sent events stream to hold a sync worker open), run to completion for each request with
`async_to_sync`. Tool calls hop back onto the request's thread (`sync_to_async(thread_sensitive=
True)` in `tools`), so they use the same connection and transaction rules as the JSON API.
"""

import json
from collections.abc import Iterable

import anyio
from asgiref.sync import async_to_sync
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from memoryconsole.api.body_limit import body_check, max_body_bytes
from memoryconsole.api.errors import RETRY_AFTER_SECONDS, EdgeError, database_unavailable
from memoryconsole.mcp.calls import ACTING, BINDING, TICKET
from memoryconsole.mcp.oauth import challenge, missing_scope, resource_of
from memoryconsole.mcp.tools import CALLER, server
from memstore.errors import MissingGrant
from memstore.invocation import manage_command
from memstore.registry.grants import grant_require
from memstore.registry.oauth import OAuthCaller, access_verify
from memstore.registry.tokens import Caller, token_verify

# The longest a call may run (a summarize waits on the model); a worker is never held longer.
REQUEST_SECONDS = 150
_SKIPPED_HEADERS = {"content-length", "transfer-encoding", "connection"}


@csrf_exempt
def mcp_endpoint(request: HttpRequest) -> HttpResponse:
    """POST JSON-RPC messages (GET and DELETE answer 405: no stream, no session)."""
    if request.method != "POST":
        # A GET would open a server-sent event stream that holds a sync worker until the client
        # leaves; this server sends nothing unasked, so it offers none (the spec allows 405).
        return _rpc_error(
            405,
            -32600,
            "POST JSON-RPC messages to this endpoint; it keeps no stream and no session.",
            {"Allow": "POST"},
        )
    try:
        body_check(request, limit=max_body_bytes())  # the API's guard, chunked bodies included
    except EdgeError as exc:
        return _rpc_error(exc.status, -32600, exc.message)
    try:
        caller = _caller(request)
    except (OperationalError, InterfaceError):
        error = database_unavailable()
        return _rpc_error(
            503,
            -32603,
            f"{error.code}: {error.message}",
            {"Retry-After": str(RETRY_AFTER_SECONDS)},
            request_id=_request_id(request.body),
        )
    if caller is None:
        sent = request.headers.get("Authorization", "").strip() != ""
        return _rpc_error(
            401,
            -32001,
            "Sign in with OAuth (this server's metadata is in WWW-Authenticate) or send a valid "
            "bot token: `Authorization: Bearer mct_…` "
            f"(`{manage_command('bots', 'token', 'SLUG')}` prints one).",
            {"WWW-Authenticate": challenge(request, error="invalid_token" if sent else "")},
            request_id=_request_id(request.body),
        )
    if refused := _grant_refused(request, caller):
        return refused
    ticket = request.headers.get("X-Room-Ticket") or None
    status, headers, body = async_to_sync(_serve)(caller, _scope(request), request.body, ticket)
    response = HttpResponse(body, status=status)
    for name, value in headers:
        if name.lower() not in _SKIPPED_HEADERS:
            response[name] = value
    return response


def _grant_refused(request: HttpRequest, caller: Caller | OAuthCaller) -> JsonResponse | None:
    """403 when the call's tool needs a grant the caller lacks: `insufficient_scope` for an
    OAuth connection (with the challenge the MCP authorization spec asks for), `missing_grant`
    for a bot token, each naming the grant."""
    needed = missing_scope(caller.scopes, request.body)
    if not needed:
        return None
    if isinstance(caller, OAuthCaller):
        return _rpc_error(
            403,
            -32001,
            f"insufficient_scope: this connection may not {needed[1]}; sign in again and "
            f"allow {needed[0]}.",
            {"WWW-Authenticate": challenge(request, error="insufficient_scope")},
            request_id=_request_id(request.body),
        )
    try:
        grant_require(granted=caller.scopes, needed=needed[0], doing=needed[1].split(" (")[0])
    except MissingGrant as exc:
        message = f"{exc.code}: {exc.message} {json.dumps(exc.detail)}"
        return _rpc_error(403, -32001, message, request_id=_request_id(request.body))
    return None


def _caller(request: HttpRequest) -> Caller | OAuthCaller | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token_verify(token=token.strip()) or access_verify(
        token=token.strip(), resource=resource_of(request)
    )


def _rpc_error(
    status: int,
    code: int,
    message: str,
    headers: dict[str, str] | None = None,
    *,
    request_id: str | int | None = None,
) -> JsonResponse:
    """A JSON-RPC error answered before the SDK sees the request."""
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return JsonResponse(body, status=status, headers=headers)


def _request_id(body: bytes) -> str | int | None:
    try:
        message = json.loads(body)
    except ValueError:
        return None
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, str | int) and not isinstance(found, bool) else None


def _scope(request: HttpRequest) -> dict:
    """The ASGI scope of this request, as the SDK's transport reads it."""
    headers = [
        (name.lower().encode("latin-1"), value.encode("latin-1"))
        for name, value in request.headers.items()
    ]
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode(),
        "root_path": "",
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "headers": headers,
        "client": (request.META.get("REMOTE_ADDR", ""), 0),
        "server": (request.get_host().rsplit(":", 1)[0], int(request.get_port() or 80)),
    }


async def _serve(
    caller: Caller | OAuthCaller, scope: dict, body: bytes, ticket: str | None
) -> tuple[int, list, bytes]:
    """Run the SDK's stateless JSON-mode handler for one request and collect its response."""
    CALLER.set((caller.bot, caller.joined, caller.read_only))
    BINDING.set(caller.binding if isinstance(caller, OAuthCaller) else None)
    ACTING.set(caller.person if isinstance(caller, OAuthCaller) else "")
    TICKET.set(ticket)
    sent = {"status": 500, "headers": [], "body": bytearray()}
    delivered = False

    async def receive() -> dict:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await anyio.sleep_forever()  # the client stays connected until the answer is sent
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            sent["status"] = message["status"]
            sent["headers"] = _decoded(message.get("headers", ()))
        elif message["type"] == "http.response.body":
            sent["body"] += message.get("body", b"")

    # A manager runs once; a stateless one per request costs a task group, nothing more.
    manager = StreamableHTTPSessionManager(
        app=server._lowlevel_server,  # the SDK's own Client reaches it the same way
        json_response=True,
        stateless=True,
        max_request_body_size=max_body_bytes(),
    )
    try:
        with anyio.fail_after(REQUEST_SECONDS):
            async with manager.run():
                await manager.handle_request(scope, receive, send)
    except TimeoutError:
        body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": "Timed out."}}
        return 504, [("Content-Type", "application/json")], json.dumps(body).encode()
    return sent["status"], sent["headers"], bytes(sent["body"])


def _decoded(headers: Iterable[tuple[bytes, bytes]]) -> list[tuple[str, str]]:
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in headers]
