"""Memory Console for LangGraph (and LangChain) agents, over the typed Python client.

    memory = MemoryConsole(url, token)              # one bot
    agent = create_react_agent(model, memory.tools,
                               pre_model_hook=memory.prompt_node,    # the section goes in
                               post_model_hook=memory.report_node)   # the turn is reported
    agent.invoke({"messages": [...]}, {"configurable": {"thread_id": "dm-42", "user_id": "alice"}})

The room is read once per run from LangGraph's own config (`configurable`): `room_id` (else
`thread_id`), `room_kind` (else direct when `user_id` / `person` names someone, group when not)
and `projects`. Everything fails open: without Memory Console the agent runs without memory.
`MemoryStore` (memory_console_langgraph.store) is the `BaseStore` subset.
"""

import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, tool
from memory_console_client import Client
from memory_console_client.adapter import (
    READ_BUDGET,
    RoomSettings,
    recall_text,
    remember_text,
    report_delivered,
    room_settings,
    section_or_empty,
    setting,
)

from memory_console_langgraph.store import MemoryStore

__all__ = ["MemoryConsole", "MemoryStore", "room_of"]
__version__ = "0.1.0"
_MESSAGE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}")


def room_of(config: RunnableConfig | None) -> RoomSettings:
    """The room a run talks in, from its config's `configurable` (see the module's doc)."""
    values = (config or {}).get("configurable") or {}
    person = setting(values, "person", "user_id")
    return room_settings(
        setting(values, "room_id", "thread_id"),
        kind=setting(values, "room_kind"),
        person=person,
        projects=setting(values, "projects") or (),
    )


class MemoryConsole:
    """One bot's memory for a LangGraph agent: `tools`, `prompt_node`, `report_node`, `store`."""

    def __init__(self, url: str, token: str, *, timeout: float = READ_BUDGET) -> None:
        # The pool every room shares; the room itself comes with each run's config.
        self.client = Client(url, token, "adapter", "routine", timeout=timeout)
        self.tools: list[BaseTool] = _tools(self)
        self.store = MemoryStore(self)

    def memory(self, config: RunnableConfig | None) -> Client:
        """The client in the room this run's config names."""
        return room_of(config).client(self.client)

    def prompt_node(self, state: dict, config: RunnableConfig) -> dict:
        """Pre-model node: the memory section as a system message before the conversation, for
        the model only (the graph's messages are left as they are)."""
        messages = list(state["messages"])
        section = section_or_empty(self.memory(config))
        if section:
            messages.insert(_after_system(messages), SystemMessage(section))
        return {"llm_input_messages": messages}

    def report_node(self, state: dict, config: RunnableConfig) -> dict:
        """Post-reply node: once the model gave its final reply (no tool calls left), report
        the person's message and that reply; nothing for an intermediate tool-calling step."""
        turn = last_turn(state["messages"])
        if turn is not None:
            message, reply = turn
            report_delivered(
                self.memory(config),
                _text(message),
                _text(reply),
                message_id=_id(message.id),
                reply_id=_id(reply.id),
            )
        return {}

    def close(self) -> None:
        self.client.close()


def last_turn(messages: Sequence[BaseMessage]) -> tuple[HumanMessage, AIMessage] | None:
    """The last person's message and the reply that answered it, when the conversation ends on
    a final reply (an AI message without tool calls)."""
    if not messages or not isinstance(messages[-1], AIMessage) or messages[-1].tool_calls:
        return None
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message, messages[-1]  # type: ignore[return-value]
    return None


def _tools(console: MemoryConsole) -> list[BaseTool]:
    @tool
    def remember(
        text: str, config: RunnableConfig, scope: str = "bot", project: str | None = None
    ) -> str:
        """Save one lasting fact in memory. scope: "bot" (your own memory, team-wide), "user"
        (about the person you talk with, direct chats only) or "project" (name the project)."""
        return remember_text(console.memory(config), text, scope, project)

    @tool
    def recall(query: str, config: RunnableConfig) -> str:
        """Search memory for facts about a topic, by words and meaning."""
        return recall_text(console.memory(config), query)

    return [remember, recall]


def _after_system(messages: list[BaseMessage]) -> int:
    return next((i for i, m in enumerate(messages) if not isinstance(m, SystemMessage)), 0)


def _text(message: BaseMessage) -> str:
    return str(message.text)


def _id(value: Any) -> str:
    # LangGraph gives messages uuid ids; anything else is left for the adapter to make up.
    text = str(value or "")
    return text if _MESSAGE_ID.fullmatch(text) else ""
