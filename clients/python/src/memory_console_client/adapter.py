"""What the framework adapters share (LangGraph, OpenAI Agents SDK, Claude Agent SDK): the room
read once from a framework's settings, the memory section and the exchange report that fail
open, and the remember / recall tools' answers as text for a model.

Failing open: when Memory Console can't be reached in time (or refuses), an agent runs without
memory rather than erroring: the section is empty, a report is dropped, a tool answers with
what went wrong. Each such miss is logged on the `memory_console_client.adapter` logger.
"""

import logging
import os
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from memory_console_client.client import Client
from memory_console_client.errors import MemoryConsoleError
from memory_console_client.results import RoomKind

log = logging.getLogger("memory_console_client.adapter")

# Seconds an adapter waits for Memory Console before going on without it (the environment's
# MEMORY_CONSOLE_READ_BUDGET, else 2).
READ_BUDGET = float(os.environ.get("MEMORY_CONSOLE_READ_BUDGET") or 2.0)
ROOM_KINDS = ("direct", "group", "routine", "bot", "event")
SCOPES = ("bot", "user", "project")


@dataclass(frozen=True)
class RoomSettings:
    """Where the agent is talking, as the adapter read it from the framework's settings: a
    direct room with a person, else a group room (no one person's memory is read there)."""

    room_id: str
    room_kind: RoomKind
    person: str | None = None
    projects: tuple[str, ...] = ()

    def client(self, memory: Client) -> Client:
        """`memory` (one bot's client) in this room, sharing its connections."""
        return memory.in_room(self.room_id, self.room_kind, self.person, self.projects)


def room_settings(
    room_id: object, *, kind: object = None, person: object = None, projects: object = ()
) -> RoomSettings:
    """The room from a framework's values: `kind` defaults to direct when a person is named and
    to group otherwise; a bad value raises ValueError naming it."""
    if not isinstance(room_id, str) or not room_id:
        raise ValueError("the room id (a conversation or thread id) must be a non-empty string")
    if person is not None and (not isinstance(person, str) or not person):
        raise ValueError(f"person must be a registered person's name, not {person!r}")
    kind = kind or ("direct" if person else "group")
    if kind not in ROOM_KINDS:
        raise ValueError(f"room kind must be one of {', '.join(ROOM_KINDS)}, not {kind!r}")
    if kind == "direct" and not person:
        raise ValueError("a direct room needs the person the agent is talking with")
    if isinstance(projects, str) or not isinstance(projects, Iterable):
        raise ValueError(f"projects must be a list of project slugs, not {projects!r}")
    return RoomSettings(room_id, kind, person, tuple(projects))  # type: ignore[arg-type]


def section_or_empty(memory: Client) -> str:
    """The memory section for this room's prompt, or "" when Memory Console can't give it in
    time (the agent then runs without memory)."""
    try:
        return memory.prompt()["text"]
    except MemoryConsoleError as error:
        log.warning("memory section left out: %s", error)
        return ""


def report_delivered(memory: Client, message: str, reply: str, *, message_id: str = "",
                     reply_id: str = "") -> bool:  # fmt: skip
    """Report an exchange whose reply was delivered (ids made up when the framework has none);
    whether Memory Console took it. A failure is logged, never raised."""
    if not message.strip() or not reply.strip():
        return False
    try:
        memory.report_exchange(
            message,
            reply,
            message_id=message_id or f"m-{uuid.uuid4().hex}",
            reply_id=reply_id or f"r-{uuid.uuid4().hex}",
        )
    except MemoryConsoleError as error:
        log.warning("exchange not reported: %s", error)
        return False
    return True


def remember_text(memory: Client, text: str, scope: str = "bot", project: str | None = None) -> str:
    """The remember tool: save a fact and say what happened, in words for the model."""
    if scope not in SCOPES:
        return f"Not saved: scope must be one of {', '.join(SCOPES)}."
    try:
        saved = memory.remember(text, scope=scope, project=project)  # type: ignore[arg-type]
    except MemoryConsoleError as error:
        return f"Not saved ({error.code}): {error.message}"
    return "Already remembered." if saved["existed"] else f"Remembered ({saved['scope']} memory)."


def recall_text(memory: Client, query: str, limit: int = 8) -> str:
    """The recall tool: what memory holds about `query`, one fact a line, in words for the
    model."""
    try:
        found = memory.recall(query, limit=limit)
    except MemoryConsoleError as error:
        return f"Memory could not be searched ({error.code}): {error.message}"
    if not found["items"]:
        return "Nothing in memory matches."
    return "\n".join(f"- ({f['date']}) {f['text']}" for f in found["items"])


def setting(values: Mapping[str, Any] | None, *names: str) -> Any:
    """The first of these keys set in a framework's settings (None when none is)."""
    for name in names:
        if values and values.get(name) not in (None, ""):
            return values[name]
    return None
