"""Who is calling and from where: the bearer token names the bot, the context headers the room.

A token acts only as its own bot: the bot's slug comes from the token, never from the request.
The room, person and ticket are checked by `memstore.rooms.context.call_context`; `groups_noted`
tells memstore once a call has been answered, never for a refusal: only then is the room bound
and a group room's bot marked "in groups". `grant_check` refuses a call that writes (every
method but GET, bar the POSTs in `READS_BY_POST`) when the token lacks memory:write, as it is
authenticated: a new write operation is covered without being listed.
"""

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from ninja.security import HttpBearer

from memoryconsole.api.schemas import ContextHeaders
from memstore.calls.context import Context, call_context, call_succeeded
from memstore.registry.grants import WRITE_GRANT, grant_require
from memstore.registry.tokens import Caller, token_verify


class BotToken(HttpBearer):
    """`Authorization: Bearer mct_…`; request.auth becomes the Caller (bot and its projects)."""

    openapi_description = "A bot's API token (staff issue one on the bot's Connect page, or with the `bots token SLUG` management command)."

    def authenticate(self, request: HttpRequest, token: str) -> Caller | None:
        key = hashlib.sha256(token.encode()).hexdigest()
        try:
            caller = token_verify(token=token)
        except (OperationalError, InterfaceError):
            # The database is down: a token this process verified lately still names its bot,
            # so the prompt can answer "memory unavailable"; any other call fails
            # on its own database access (503). An unknown token waits for the database.
            # Without its generation: nothing remembered is trusted for this call (the link and
            # the room are asked of the database, which fails, as before any of it was cached).
            if (recent := _verified.get(key)) and time.monotonic() - recent[0] < RECENT_SECONDS:
                grant_check(request, recent[1])
                return replace(recent[1], generation=None)
            raise
        if caller is not None:
            if len(_verified) >= 10_000:
                _verified.clear()
            _verified[key] = (time.monotonic(), caller)
            grant_check(request, caller)
        return caller


RECENT_SECONDS = 900  # how long a verified token is trusted while the database is down
_verified: dict[str, tuple[float, Caller]] = {}  # sha256(token) -> (when, who)


def context_of(request: HttpRequest, headers: ContextHeaders) -> Context:
    """The calling bot in the room its headers name (the server decides what that allows)."""
    caller: Caller = request.auth  # type: ignore[attr-defined]
    ctx = call_context(
        bot=caller.bot,
        room_id=headers.room_id,
        room_kind=headers.room_kind,
        person=headers.person,
        projects=headers.project_list,
        joined=caller.joined,
        ticket=headers.ticket or None,
        generation=caller.generation,
        traits=caller.traits,
        private=headers.private,
        read_only=caller.read_only,
    )
    request.memory_context = ctx  # type: ignore[attr-defined]
    return ctx


def groups_noted(run: Callable) -> Callable:
    """A view decorator: after an answered call (status below 400), tell memstore the call
    succeeded, so a room is bound, and a bot marked "in groups", only by a call not refused."""

    def noted(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = run(request, *args, **kwargs)
        ctx = getattr(request, "memory_context", None)
        if ctx is not None and response.status_code < 400:
            try:
                call_succeeded(ctx=ctx)
            except (OperationalError, InterfaceError) as error:
                # Outside ninja's error map (a view decorator): the answer stands; the mark is
                # made by the room's next answered call.
                logging.getLogger(__name__).warning("in-groups mark skipped: %s", error)
        return response

    return noted


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Operations (by url_name) that POST only to carry a body and change nothing: memory:read does.
READS_BY_POST = frozenset({"prompt_changes"})


def writes(method: str, url_name: str | None) -> bool:
    """Whether a call (its HTTP method and its path's url_name) writes memory: every method but
    GET does, bar the operations in READS_BY_POST."""
    return method.upper() not in SAFE_METHODS and url_name not in READS_BY_POST


def grant_check(request: HttpRequest, caller: Caller) -> None:
    """Raise MissingGrant (403 `missing_grant`, naming memory:write) when this call writes and
    the token may only read; runs as part of authentication, before the body is validated."""
    match = request.resolver_match
    if writes(request.method or "", match.url_name if match else None):
        doing = f"{request.method} {request.path}"
        grant_require(granted=caller.scopes, needed=WRITE_GRANT, doing=doing)
