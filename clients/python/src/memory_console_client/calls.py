"""What each call sends and how an answer is read: shared by `Client` and `AsyncClient`, which
only move the bytes. One function per operation builds its `Call` (method, path, query, body,
headers), leaving out what the caller did not set so the server's defaults apply; `read` turns
an answer into its JSON or raises the fitting `MemoryConsoleError`.
"""

import ssl
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import httpx2

from memory_console_client.errors import ConnectionFailedError, MemoryConsoleError, error_class

API_PREFIX = "/api/v1"
USER_AGENT = "memory-console-client/0.1.0 (python)"


@dataclass(frozen=True)
class Room:
    """Where the bot is talking; sent as headers on every call (the server decides from them
    what the call may read and write). `private`: a group room that is a private conversation
    (`X-Room-Private: true`), whose saves belong to it."""

    room_id: str
    room_kind: str
    person: str | None = None
    projects: tuple[str, ...] = ()
    ticket: str | None = None
    private: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.room_id, str) or not self.room_id:
            raise ValueError("room_id must be the conversation's id, a non-empty string")
        if not isinstance(self.room_kind, str) or not self.room_kind:
            raise ValueError("room_kind must be direct, group, routine, bot or event")
        if not isinstance(self.private, bool):
            raise TypeError(f"room_private must be True or False, not {self.private!r}")
        if self.private and self.room_kind != "group":
            raise ValueError(
                f"room_private=True is for a group room (a private channel), not a "
                f"{self.room_kind} room"
            )

    def headers(self) -> dict[str, str]:
        sent = {"X-Room-Id": self.room_id, "X-Room-Kind": self.room_kind}
        if self.person:
            sent["X-Person"] = self.person
        if self.projects:
            sent["X-Projects"] = ",".join(self.projects)
        if self.ticket:
            sent["X-Room-Ticket"] = self.ticket
        if self.private:
            sent["X-Room-Private"] = "true"
        return sent


def project_list(projects: Iterable[str]) -> tuple[str, ...]:
    """The projects in play, refusing one string (which would be read letter by letter)."""
    if isinstance(projects, str):
        raise TypeError(
            f"projects must be a list of project slugs, not the string {projects!r} "
            f"(write projects=[{projects!r}])"
        )
    return tuple(projects)


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    query: dict[str, str | int | bool] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)


def _set(values: Mapping[str, Any]) -> dict[str, Any]:
    """Only the values the caller gave (None means: the server's default)."""
    return {k: v for k, v in values.items() if v is not None}


def remember(
    text: str,
    *,
    scope: str,
    project: str | None,
    tier: str,
    type: str | None,
    importance: float | None,
    visibility: str | None,
    src: str | None,
    pin: bool | None,
    idempotency_key: str | None,
    until: str | None = None,
    review: str | None = None,
    weight: float | None = None,
) -> Call:
    body = _set(
        dict(
            text=text,
            scope=scope,
            project=project,
            tier=tier,
            type=type,
            importance=importance,
            visibility=visibility,
            src=src,
            pin=pin,
            until=until,
            review=review,
            weight=weight,
        )
    )
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
    return Call("POST", "/facts", body=body, headers=headers)


def recall(query: str, *, limit: int | None, neighbours: bool) -> Call:
    params = _set(dict(query=query, limit=limit, neighbours="true" if neighbours else None))
    return Call("GET", "/recall", query=params)


def list_facts(
    *,
    scope: str | None,
    project: str | None,
    tier: str | None,
    month: str | None,
    q: str | None,
    as_of: str | None,
    offset: int | None,
    limit: int | None,
    expired: bool | None = None,
    type: str | None = None,
) -> Call:
    params = dict(
        scope=scope,
        project=project,
        tier=tier,
        type=type,
        month=month,
        q=q,
        as_of=as_of,
        offset=offset,
    )
    if expired is not None:
        params["expired"] = "true" if expired else "false"
    return Call("GET", "/facts", query=_set(params | {"limit": limit}))


def edit(
    fact_id: str,
    text: str,
    *,
    expected_text: str | None,
    scope: str | None,
    project: str | None,
    until: str | None = None,
    review: str | None = None,
) -> Call:
    _check_fact_id(fact_id)
    body = _set(
        dict(
            text=text,
            expected_text=expected_text,
            scope=scope,
            project=project,
            until=until,
            review=review,
        )
    )
    return Call("PATCH", f"/facts/{fact_id}", body=body)


def forget(
    *,
    id: str | None,
    text: str | None,
    scope: str | None,
    project: str | None,
    erase: bool,
) -> Call:
    if (id is None) == (text is None):
        raise ValueError("forget needs exactly one of id= (a fact's id) and text= (its text)")
    body = _set(dict(id=id, text=text, scope=scope, project=project))
    if erase:
        body["erase"] = True
    return Call("POST", "/facts/forget", body=body)


def feedback(fact_id: str, verb: str) -> Call:
    _check_fact_id(fact_id)
    return Call("POST", f"/facts/{fact_id}/feedback", body={"verb": verb})


def prompt(*, as_of: str | None) -> Call:
    return Call("GET", "/prompt", query=_set(dict(as_of=as_of)))


def prompt_changes(previous: str) -> Call:
    return Call("POST", "/prompt/changes", body={"previous": previous})


def changes(*, since: int, limit: int | None) -> Call:
    return Call("GET", "/changes", query=_set(dict(since=since, limit=limit)))


def report_exchange(
    message: str,
    reply: str,
    *,
    message_id: str,
    reply_id: str,
    recalled: Iterable[str],
    guests: bool = False,
    digest: str = "",
) -> Call:
    if isinstance(recalled, str):
        raise TypeError("recalled must be a list of fact ids or texts, not one string")
    body: dict[str, Any] = dict(
        message=message, reply=reply, message_id=message_id, reply_id=reply_id
    )
    if recalled := list(recalled):
        body["recalled"] = recalled
    if guests:
        body["guests"] = True
    if digest:
        body["digest"] = digest
    return Call("POST", "/exchanges", body=body)


def fact_links(fact_id: str, *, depth: int) -> Call:
    _check_fact_id(fact_id)
    return Call("GET", f"/facts/{fact_id}/links", query={"depth": depth})


MEMORY_TOOL_FIELDS = frozenset(
    {
        "command",
        "path",
        "view_range",
        "file_text",
        "old_str",
        "new_str",
        "insert_line",
        "insert_text",
        "old_path",
        "new_path",
    }
)


def memory_tool(command: Mapping[str, Any]) -> Call:
    """A call of Claude's memory tool, its `input` as the model sent it."""
    if not isinstance(command, Mapping) or "command" not in command:
        raise TypeError("memory_tool takes the tool call's input, a dict with a 'command'")
    unknown = sorted(set(command) - MEMORY_TOOL_FIELDS)
    if unknown:
        raise ValueError(f"memory_tool: unknown field(s) {unknown} in the tool call's input")
    return Call("POST", "/memory-tool", body=dict(command))


def _check_fact_id(fact_id: str) -> None:
    # It becomes part of the path: anything but an id would call another URL.
    if not (len(fact_id) == 16 and all(c in "0123456789abcdef" for c in fact_id)):
        raise ValueError(f"fact_id must be a fact's id (16 hex digits), got {fact_id!r}")


def request_of(call: Call, room: Room) -> dict[str, Any]:
    """The keyword arguments of `httpx2.Client.request` for this call from this room."""
    arguments: dict[str, Any] = {
        "method": call.method,
        "url": API_PREFIX + call.path,
        "headers": room.headers() | call.headers,
    }
    if call.query:
        arguments["params"] = call.query
    if call.body is not None:
        arguments["json"] = call.body
    return arguments


def client_options(base_url: str, token: str, timeout: float) -> dict[str, Any]:
    """The keyword arguments of `httpx2.Client` / `AsyncClient` for one bot's token."""
    if not isinstance(token, str) or not token.strip():
        raise ValueError("token must be the bot's API token (mct_…, `manage.py bots token`)")
    if not base_url.startswith(("http://", "https://")):
        raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
    return {
        "base_url": base_url.rstrip("/"),
        "headers": {
            "Authorization": f"Bearer {token.strip()}",
            "Accept": "application/json",
            "User-Agent": USER_AGENT,
        },
        "timeout": timeout,
        "verify": tls_context(),
    }


@cache
def tls_context() -> ssl.SSLContext:
    """httpx2's default TLS context (the system's trusted certificates), made once per process:
    loading the certificates costs ~50 ms, which every new client would otherwise pay."""
    return httpx2.create_ssl_context()


def read(response: httpx2.Response) -> Any:
    """The answer's JSON, or the API's refusal raised as a `MemoryConsoleError`."""
    if response.status_code < 400:
        return response.json()
    try:
        problem = response.json()
    except ValueError:
        problem = None
    if not isinstance(problem, dict) or "code" not in problem:
        problem = {
            "code": "http_error",
            "message": f"The server answered {response.status_code} without an API error "
            f"body: {response.text[:200]!r}",
        }
    retry = response.headers.get("Retry-After")
    raise error_class(response.status_code)(
        response.status_code,
        str(problem["code"]),
        str(problem.get("message", "")),
        problem.get("detail") if isinstance(problem.get("detail"), dict) else {},
        retry_after=_seconds(retry),
    )


def _seconds(retry_after: str | None) -> float | None:
    """A Retry-After in seconds (the API sends whole seconds; an HTTP date is not used here)."""
    try:
        seconds = float(retry_after or "")
    except ValueError:
        return None
    return seconds if 0 <= seconds < 86_400 else None


def unreachable(base_url: str, error: httpx2.TransportError) -> MemoryConsoleError:
    """No answer came: the server is down, the address wrong, or it took too long."""
    code = "timeout" if isinstance(error, httpx2.TimeoutException) else "connection_failed"
    return ConnectionFailedError(0, code, f"No answer from {base_url}: {error!r}")
