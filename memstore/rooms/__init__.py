"""A bot in a room: the one way a call's `Context` is opened (`context`), what a room may read
and write and see (`access`, with `visible`), room tickets and bindings (`tickets`), and replies
kept for retried calls (`idempotency`), and the one gate for text going out to any model
(`outgoing`: only what the room in play may read)."""
