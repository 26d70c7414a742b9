"""Memory Console for OpenAI Agents SDK agents, over the typed Python client.

    memory = MemoryConsole(url, token)                       # one bot
    agent = Agent(name="Scout", instructions=memory.instructions("You are Scout."),
                  tools=memory.tools, model=...)
    room = room_settings("dm-42", person="alice", projects=["apollo"])
    result = await Runner.run(agent, "…", context=room, hooks=memory.hooks)

The room is the run's own context (`Runner.run(context=...)`): a `RoomSettings`, or any object
or dict with `room_id`, `room_kind`, `person` and `projects`. The instructions end with the
memory section, built before each model call; the hooks report the person's message and the
agent's final output once the run produced it (never a tool-calling step, never a failed run).
Everything fails open: without Memory Console the agent runs without memory.
"""

import asyncio
from collections.abc import Callable
from typing import Any

from agents import Agent, RunContextWrapper, RunHooks, function_tool
from agents.tool import FunctionTool
from memory_console_client import Client
from memory_console_client.adapter import (
    READ_BUDGET,
    RoomSettings,
    recall_text,
    remember_text,
    report_delivered,
    room_settings,
    section_or_empty,
)

__all__ = ["MemoryConsole", "MemoryHooks", "room_of", "room_settings"]
__version__ = "0.1.0"


def room_of(context: Any) -> RoomSettings:
    """The room a run talks in, from its context object (see the module's doc)."""
    if isinstance(context, RoomSettings):
        return context
    get = context.get if isinstance(context, dict) else lambda name: getattr(context, name, None)
    if get("room_id") is None:
        raise ValueError(
            "the run's context must say where the agent talks: Runner.run(..., "
            "context=room_settings('dm-42', person='alice')) or an object with room_id"
        )
    return room_settings(
        get("room_id"), kind=get("room_kind"), person=get("person"), projects=get("projects") or ()
    )


class MemoryConsole:
    """One bot's memory for Agents SDK agents: `tools`, `instructions(...)`, `hooks`."""

    def __init__(self, url: str, token: str, *, timeout: float = READ_BUDGET) -> None:
        # The pool every room shares; the room itself comes with each run's context.
        self.client = Client(url, token, "adapter", "routine", timeout=timeout)
        self.tools: list[FunctionTool] = _tools(self)
        self.hooks = MemoryHooks(self)

    def memory(self, context: Any) -> Client:
        """The client in the room this run's context names."""
        return room_of(context).client(self.client)

    def instructions(self, base: str = "") -> Callable[[RunContextWrapper[Any], Agent], Any]:
        """An `instructions` callable: `base`, then the memory section of the run's room."""

        async def instructions(ctx: RunContextWrapper[Any], agent: Agent) -> str:
            section = await asyncio.to_thread(section_or_empty, self.memory(ctx.context))
            return "\n\n".join(part for part in (base, section) if part)

        return instructions

    def close(self) -> None:
        self.client.close()


class MemoryHooks(RunHooks[Any]):
    """Run hooks that report each delivered turn: the person's last message (seen as the model
    is called) and the agent's final output."""

    def __init__(self, console: MemoryConsole) -> None:
        self.console = console
        self._asked: dict[int, str] = {}

    async def on_llm_start(self, context, agent, system_prompt, input_items) -> None:
        asked = last_user_text(input_items)
        if asked:
            self._asked[id(context.context)] = asked

    async def on_agent_end(self, context, agent, output: Any) -> None:
        asked = self._asked.pop(id(context.context), "")
        if asked and isinstance(output, str):
            memory = self.console.memory(context.context)
            await asyncio.to_thread(report_delivered, memory, asked, output)


def last_user_text(items: list[Any]) -> str:
    """The text of the last user message among a model call's input items."""
    for item in reversed(items or []):
        if isinstance(item, dict) and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, str):
                return content
            parts = [p.get("text", "") for p in content or [] if isinstance(p, dict)]
            return "".join(parts)
    return ""


def _tools(console: MemoryConsole) -> list[FunctionTool]:
    @function_tool
    async def remember(
        ctx: RunContextWrapper[Any], text: str, scope: str = "bot", project: str | None = None
    ) -> str:
        """Save one lasting fact in memory.

        Args:
            text: The fact, one sentence.
            scope: "bot" (your own memory, team-wide), "user" (about the person you talk
                with, direct chats only) or "project".
            project: The project's slug, for scope "project".
        """
        memory = console.memory(ctx.context)
        return await asyncio.to_thread(remember_text, memory, text, scope, project)

    @function_tool
    async def recall(ctx: RunContextWrapper[Any], query: str) -> str:
        """Search memory for facts about a topic, by words and meaning.

        Args:
            query: What to look for.
        """
        return await asyncio.to_thread(recall_text, console.memory(ctx.context), query)

    return [remember, recall]
