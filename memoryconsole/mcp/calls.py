"""What every MCP tool shares: who is calling, the room arguments, the tool annotations, and
running one memstore call with the API's validation and error codes.

Who is calling is `CALLER`, set by the front door: the bot and its joined projects from the
bearer token over HTTP; `--bot` on stdio, whose projects are read at each call (None). A
connection made with OAuth may be bound to one room (`BINDING`): its tools then take no room
arguments, and the schemas it lists leave them out. Where the deployment wants room tickets,
a bound connection's calls carry one this server signs (`ticket_for_consent`: the person's
consent vouches for the room); an unbound one sends the platform's, as a bot token does.
"""

import json
import logging
from collections.abc import Callable
from contextvars import ContextVar
from typing import Annotated, Any

from asgiref.sync import sync_to_async
from django.db import InterfaceError, OperationalError
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import Tool, ToolAnnotations
from pydantic import Field, ValidationError

from memoryconsole.api.errors import database_unavailable
from memstore.calls.context import Context, call_context, call_succeeded, ticket_for_consent
from memstore.errors import MemstoreError
from memstore.registry.oauth import Binding
from memstore.vocabulary import (
    FACT_ID_PATTERN,
    PERSON_PATTERN,
    ROOM_PATTERN,
    SLUG_PATTERN,
    RoomKind,
    anchored,
)

logger = logging.getLogger("memoryconsole.mcp")

# (bot, joined projects, those it may only read); None: read from the registry at each call.
CALLER: ContextVar[tuple[str, frozenset[str] | None, frozenset[str] | None]] = ContextVar(
    "mcp_caller"
)
# The request's `X-Room-Ticket` (one JSON-RPC call per request here, so one room per ticket).
TICKET: ContextVar[str | None] = ContextVar("mcp_room_ticket", default=None)
BINDING: ContextVar[Binding | None] = ContextVar("mcp_binding", default=None)
# The person who made the OAuth connection this call came through ("": a bot token): what the
# call saves names them (`for=`).
ACTING: ContextVar[str] = ContextVar("mcp_acting", default="")
ROOM_ARGUMENTS = ("room_id", "room_kind", "person", "projects")
_CALLED: ContextVar[Context | None] = ContextVar("mcp_call_context", default=None)

# Required unless the connection is bound to a room (`rooms_required` puts them back in the
# schema a caller sees when it must send them).
RoomId = Annotated[
    str | None, Field(pattern=anchored(ROOM_PATTERN), description="The conversation's id.")
]
Kind = Annotated[
    RoomKind | None,
    Field(description="direct (one person, one bot), group, routine, bot (bot-to-bot) or event."),
]
Person = Annotated[
    str | None,
    Field(
        pattern=anchored(PERSON_PATTERN),
        description="The person's username: required in direct rooms, ignored elsewhere.",
    ),
]
Projects = Annotated[
    list[Annotated[str, Field(pattern=anchored(SLUG_PATTERN))]],
    Field(
        max_length=3, description="Up to 3 project slugs in play; the bot must have joined them."
    ),
]
Project = Annotated[
    str | None,
    Field(pattern=anchored(SLUG_PATTERN), description="The project, with scope=project."),
]
FactId = Annotated[str, Field(pattern=anchored(FACT_ID_PATTERN), description="16 hex digits.")]

READ = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)
ADD = ToolAnnotations(
    readOnlyHint=False, destructiveHint=False, idempotentHint=True, openWorldHint=False
)
CHANGE = ToolAnnotations(
    readOnlyHint=False, destructiveHint=True, idempotentHint=False, openWorldHint=False
)
REMOVE = ToolAnnotations(
    readOnlyHint=False, destructiveHint=True, idempotentHint=True, openWorldHint=False
)


def checked[T](schema: type[T], **fields: Any) -> T:
    """Validate arguments with the API's request schema (the same limits and cross-field rules)."""
    try:
        return schema.model_validate({k: v for k, v in fields.items() if v is not None})  # type: ignore[attr-defined]
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
            for e in exc.errors()[:3]
        )
        raise ToolError(f"invalid_request: {problems}") from None


class MemoryServer(MCPServer):
    """The SDK's server, listing each tool's room arguments as this caller must send them."""

    async def list_tools(self) -> list[Tool]:
        bound = BINDING.get() is not None
        return [_as_listed(tool, bound) for tool in await super().list_tools()]


def _as_listed(tool: Tool, bound: bool) -> Tool:
    schema = dict(tool.input_schema)
    properties = dict(schema.get("properties", {}))
    if "room_id" not in properties:
        return tool
    required = [name for name in schema.get("required", []) if name not in ROOM_ARGUMENTS]
    if bound:
        for name in ROOM_ARGUMENTS:
            properties.pop(name, None)
    else:
        required = ["room_id", "room_kind", *required]
    schema["properties"] = properties
    schema["required"] = required
    return tool.model_copy(update={"input_schema": schema})


def room_context(
    room_id: str | None, room_kind: str | None, person: str | None, projects: list[str]
) -> Context:
    """The call's Context: the bound room for a bound connection (room arguments naming another
    room are refused), else the room the arguments name (both room_id and room_kind needed)."""
    bot, joined, read_only = CALLER.get()
    binding = BINDING.get()
    ticket = TICKET.get()
    if binding is not None:
        if (room_id and room_id != binding.room_id) or (
            room_kind and room_kind != binding.room_kind
        ):
            raise ToolError(
                f"room_bound: this connection is bound to room {binding.room_id} "
                f"({binding.room_kind}); leave room_id and room_kind out."
            )
        room_id, room_kind, person = binding.room_id, binding.room_kind, binding.person
        ticket = ticket_for_consent(
            bot=bot, room_id=room_id, kind=room_kind, person=person or "", projects=projects
        )
    elif not room_id or not room_kind:
        raise ToolError(
            "invalid_request: room_id and room_kind are required (this connection is not "
            "bound to a room)."
        )
    ctx = call_context(
        bot=bot,
        room_id=room_id,
        room_kind=room_kind,
        person=person,
        projects=projects,
        joined=joined,
        ticket=ticket,
        read_only=read_only,
        acting=ACTING.get() or None,
    )
    _CALLED.set(ctx)
    return ctx


def _answered[T](call: Callable[[], T]) -> Callable[[], T]:
    # As the API's groups_noted: a call answered in a group room marks its bot "in groups" (a
    # refused call raises first). Runs in the call's own thread and context copy.
    def answered() -> T:
        _CALLED.set(None)
        value = call()
        ctx = _CALLED.get()
        if ctx is not None:
            call_succeeded(ctx=ctx)
        return value

    return answered


async def run_call[T](call: Callable[[], T]) -> T:
    """Run a memstore call on the request's thread (Django's database connection lives there),
    turning domain errors into MCP tool errors that start with the API's error code."""
    try:
        return await sync_to_async(_answered(call), thread_sensitive=True)()
    except (OperationalError, InterfaceError) as exc:
        logger.warning("MCP tool call: database unavailable: %s", exc)
        raise tool_error(database_unavailable()) from None
    except (MemstoreError, ToolError) as exc:
        raise tool_error(exc) from None
    except Exception:
        # As the API's last resort: logged with its traceback, never shown to the bot.
        logger.exception("MCP tool call failed")
        raise ToolError("server_error: Something went wrong on the server.") from None


def tool_error(exc: MemstoreError | ToolError) -> ToolError:
    """An MCP tool error whose text starts with the API's error code."""
    if isinstance(exc, ToolError):
        return exc
    detail = f" {json.dumps(exc.detail, default=str)}" if exc.detail else ""
    return ToolError(f"{exc.code}: {exc.message}{detail}")
