"""The bots' door's first step: the Context a call opens (which bot, room and person, checked
against the registry and the room's bindings), the most projects a call may name, and the
bookkeeping when a call succeeded."""

from memstore.rooms.access import MAX_PROJECTS, Context
from memstore.rooms.context import call_context, call_succeeded

__all__ = ["MAX_PROJECTS", "Context", "call_context", "call_succeeded"]
