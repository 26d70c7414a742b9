"""The MCP resources: the bot's own "About me" note, and its prompt's memory section for a room.

    memory://about-me                                         the bot's About me note (any room)
    memory://prompt                                           the bound room's section
    memory://prompt/{room_kind}/{room_id}{?person,projects}   a named room's section

The section is the prompt_section tool's answer, opened with the same `room_context` (so the same
room rules: a person's memory only in their direct rooms, projects only if joined; a connection
bound to a room reads that room and no other). A refusal is a resource error whose message starts
with the API's error code and carries no memory.

Does not: decide anything about rooms or notes (memstore does), or check OAuth scopes (http.py).
"""

from collections.abc import Callable

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError

from memoryconsole.mcp.calls import BINDING, CALLER, room_context, run_call
from memstore.calls.notes import note_read
from memstore.calls.prompt import prompt_or_unavailable
from memstore.vocabulary import ROOM_KINDS

MARKDOWN = "text/markdown"
PROMPT_TEMPLATE = "memory://prompt/{room_kind}/{room_id}{?person,projects}"


def resources_add(server: MCPServer) -> None:
    """Register the resources on `server` (the tools' server: one connection offers both)."""
    server.resource("memory://about-me", name="about_me", title="About me", mime_type=MARKDOWN)(
        about_me
    )
    server.resource(
        "memory://prompt", name="prompt", title="Memory for the prompt", mime_type=MARKDOWN
    )(bound_prompt)
    server.resource(
        PROMPT_TEMPLATE, name="room_prompt", title="Memory for a room's prompt", mime_type=MARKDOWN
    )(room_prompt)


async def about_me() -> str:
    """This bot's own "About me" note, as the prompt opens with it (empty if never written)."""
    return await _read(lambda: note_read(kind="me", name=CALLER.get()[0]).text)


async def bound_prompt() -> str:
    """The memory section of this bot's prompt in the room this connection is bound to (a
    connection made without a bound room reads memory://prompt/{room_kind}/{room_id} instead)."""

    def section() -> str:
        if BINDING.get() is None:
            raise ToolError(
                "invalid_request: this connection is not bound to a room; read "
                "memory://prompt/{room_kind}/{room_id}?person=…&projects=… instead."
            )
        return _section(None, None, None, "")

    return await _read(section)


async def room_prompt(room_kind: str, room_id: str, person: str = "", projects: str = "") -> str:
    """The memory section of this bot's prompt in one room: room_kind (direct, group, routine,
    bot, event), room_id, person (direct rooms) and projects (comma-separated, up to 3)."""
    return await _read(lambda: _section(room_id, room_kind, person or None, projects))


def _section(room_id: str | None, room_kind: str | None, person: str | None, projects: str) -> str:
    if room_kind is not None and room_kind not in ROOM_KINDS:
        raise ToolError(f"invalid_request: room_kind must be one of {', '.join(ROOM_KINDS)}.")
    names = [p for p in projects.split(",") if p] if projects else []
    answer = prompt_or_unavailable(
        open_context=lambda: room_context(room_id, room_kind, person, names)
    )
    return answer.text


async def _read(read: Callable[[], str]) -> str:
    """Run a memstore read as a tool call runs (the request's thread, the same error codes), a
    refusal becoming a resource error whose message starts with the API's error code."""
    try:
        return await run_call(read)
    except ToolError as refused:
        raise ResourceError(str(refused)) from None
