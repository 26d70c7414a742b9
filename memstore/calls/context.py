"""The bots' door's first step: the Context a call opens (which bot, room and person, checked
against the registry and the room's bindings), the most projects a call may name, and the
bookkeeping when a call succeeded; and the room ticket this server signs itself for an MCP
connection a person bound to their room in the console."""

from memstore.rooms.access import MAX_PROJECTS, Context
from memstore.rooms.context import call_context, call_succeeded
from memstore.rooms.tickets import ticket_for_consent

__all__ = ["MAX_PROJECTS", "Context", "call_context", "call_succeeded", "ticket_for_consent"]
