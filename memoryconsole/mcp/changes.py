"""The MCP `changes` tool: the change feed (GET /api/v1/changes) for agents that speak MCP,
registered on the server `tools` defines."""

from typing import Annotated

from pydantic import Field

from memoryconsole.api.schemas.feed import FeedOut, FeedQuery
from memoryconsole.mcp.calls import READ, Kind, Person, Projects, RoomId, checked, room_context
from memoryconsole.mcp.calls import run_call as run
from memoryconsole.mcp.tools import server
from memstore.calls.changes import DEFAULT_LIMIT, MAX_LIMIT, changes_since


@server.tool(title="What changed", annotations=READ)
async def changes(
    since: Annotated[int, Field(ge=0, description="The cursor of the last answer (0: start).")] = 0,
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
    room_id: RoomId = None,
    room_kind: Kind = None,
    person: Person = None,
    projects: Projects = [],  # noqa: B006
) -> FeedOut:
    """Every add, edit, supersede, forget, erase and restore in what this room may read, oldest
    first, after `since`; call again with the answer's `cursor`. Erased facts carry no text."""
    params = checked(FeedQuery, since=since, limit=limit)

    def call() -> FeedOut:
        ctx = room_context(room_id, room_kind, person, projects)
        return FeedOut.of(changes_since(ctx=ctx, since=params.since, limit=params.limit))

    return await run(call)
