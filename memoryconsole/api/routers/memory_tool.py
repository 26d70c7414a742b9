"""Claude's memory tool (`memory_20250818`) over the bot's memory in the room the call names."""

from django.http import HttpRequest
from ninja import Header, Router

from memoryconsole.api.auth import context_of
from memoryconsole.api.errors import errors
from memoryconsole.api.schemas import ContextHeaders
from memoryconsole.api.schemas.memory_tool import MemoryToolIn, MemoryToolOut
from memstore.calls.memory_tool import MemoryCommand, memory_command

router = Router(tags=["memory tool"])


@router.post(
    "/memory-tool",
    response={200: MemoryToolOut, **errors(400, 401, 403, 404, 409, 413, 422)},
    operation_id="memory_tool",
    url_name="memory_tool",
)
def memory_tool(request: HttpRequest, room: Header[ContextHeaders], body: MemoryToolIn):
    """Run one command of Claude's memory tool and answer with the tool result's text. The
    tree under /memories has one file per scope this room may write (`bot.md`, `user.md` in
    direct rooms, `projects/<p>.md`), one fact a line; every change is a save, edit or forget
    through the same rules as the facts endpoints. A command that can't be done is a 422
    `memory_tool_refused` whose message tells the model what to do instead."""
    ctx = context_of(request, room)
    return MemoryToolOut(result=memory_command(ctx=ctx, call=MemoryCommand(**body.model_dump())))
