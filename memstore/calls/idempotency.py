"""The bots' door for retries: a write sent again with the same Idempotency-Key gets the first
reply, not a second write."""

from memstore.rooms.idempotency import idempotent_call

__all__ = ["idempotent_call"]
