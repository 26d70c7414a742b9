"""Memory Console for Claude Agent SDK sessions, over the typed Python client.

    memory = MemoryConsole(url, token, room_settings("dm-42", person="alice"))
    options = ClaudeAgentOptions(hooks=memory.hooks(), mcp_servers=memory.mcp_servers())

`UserPromptSubmit` adds the memory section to the prompt (as the hook's additional context);
`Stop` reports the prompt and Claude's last reply once the session stopped with one. The MCP
server (Memory Console's own, `/mcp`, with the bot's token) gives Claude the memory tools.
The room is given once, when the adapter is made. Everything fails open: without Memory Console
the session runs without memory. `MemoryToolBackend` (memory_console_claude.memory_tool) is
Claude's memory tool over the same memory.
"""

from typing import Any

from claude_agent_sdk import HookMatcher
from memory_console_client import Client
from memory_console_client.adapter import (
    READ_BUDGET,
    RoomSettings,
    report_delivered,
    room_settings,
    section_or_empty,
)

__all__ = ["MemoryConsole", "room_settings"]
__version__ = "0.1.0"


class MemoryConsole:
    """One bot in one room for a Claude Agent SDK session: `hooks()`, `mcp_servers()`."""

    def __init__(
        self, url: str, token: str, room: RoomSettings, *, timeout: float = READ_BUDGET
    ) -> None:
        self.url, self._token, self.room = url.rstrip("/"), token, room
        self.client = room.client(Client(url, token, "adapter", "routine", timeout=timeout))
        self._prompts: dict[str, str] = {}  # session id -> the prompt waiting for its reply

    def hooks(self) -> dict[str, list[HookMatcher]]:
        """`ClaudeAgentOptions(hooks=...)`: the section in, the exchange reported."""
        return {
            "UserPromptSubmit": [HookMatcher(hooks=[self.on_prompt])],
            "Stop": [HookMatcher(hooks=[self.on_stop])],
        }

    def mcp_servers(self) -> dict[str, dict[str, Any]]:
        """`ClaudeAgentOptions(mcp_servers=...)`: Memory Console's MCP server with the bot's
        token (its tools take the room as arguments; the section names it)."""
        return {
            "memory": {
                "type": "http",
                "url": f"{self.url}/mcp",
                "headers": {"Authorization": f"Bearer {self._token}"},
            }
        }

    async def on_prompt(self, data: dict, tool_use_id: str | None, context: Any) -> dict:
        """UserPromptSubmit: remember the prompt, and add the memory section for this turn."""
        self._prompts[data.get("session_id", "")] = data.get("prompt", "")
        section = section_or_empty(self.client)
        if not section:
            return {}
        room = self.room
        where = f"(memory tools: room_id={room.room_id}, room_kind={room.room_kind}"
        where += f", person={room.person})" if room.person else ")"
        return {
            "hookSpecificOutput": {
                "hookEventName": "UserPromptSubmit",
                "additionalContext": f"{section}\n\n{where}",
            }
        }

    async def on_stop(self, data: dict, tool_use_id: str | None, context: Any) -> dict:
        """Stop: report the turn's prompt and Claude's last reply (once: the prompt is used up)."""
        prompt = self._prompts.pop(data.get("session_id", ""), "")
        reply = data.get("last_assistant_message") or ""
        if prompt and reply:
            report_delivered(self.client, prompt, reply)
        return {}

    def close(self) -> None:
        self.client.close()
