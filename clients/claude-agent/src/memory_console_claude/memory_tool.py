"""`MemoryToolBackend`: Claude's memory tool (`memory_20250818`) over Memory Console, for the
Anthropic SDK's tool runner (`client.beta.messages.run_tools(tools=[backend], ...)`).

Each command goes to the server as Claude sent it (`POST /api/v1/memory-tool`), which keeps the
tree under /memories (one file per scope the room may write, one fact a line) and writes through
the same rules as every save: secrets, audiences, history, hand-edit safety. A refused command
comes back to Claude as the tool's error, saying what to do instead; an unreachable server as
an error saying memory is unavailable (the conversation goes on).
"""

from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError
from memory_console_client import Client, MemoryConsoleError

__all__ = ["MemoryToolBackend"]


class MemoryToolBackend(BetaAbstractMemoryTool):
    """The memory tool for one bot in one room (`client`: the typed client in that room)."""

    def __init__(self, client: Client) -> None:
        super().__init__()
        self.client = client

    def _run(self, command) -> str:
        sent = command.model_dump(mode="json", exclude_none=True)
        try:
            return self.client.memory_tool(sent)
        except MemoryConsoleError as error:
            if error.status == 0 or error.status >= 500:
                raise ToolError(
                    f"Memory is unavailable right now ({error.code}); go on without it."
                ) from error
            raise ToolError(f"{error.code}: {error.message}") from error

    def view(self, command):
        return self._run(command)

    def create(self, command):
        return self._run(command)

    def str_replace(self, command):
        return self._run(command)

    def insert(self, command):
        return self._run(command)

    def delete(self, command):
        return self._run(command)

    def rename(self, command):
        return self._run(command)
