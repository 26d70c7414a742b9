"""Domain errors. Services raise these; the API and the console map them to responses in one place.

Each error has a stable `code` (part of the API contract) and a message written for a person.
"""


class MemstoreError(Exception):
    """Base of every domain error: `code` is stable, `str(error)` is the human message."""

    code = "memory_error"
    status = 400

    def __init__(self, message: str, *, detail: dict | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail or {}


class InvalidFact(MemstoreError):
    """The fact's text, date, tag or metadata is not acceptable."""

    code = "invalid_fact"
    status = 422


class InvalidNote(MemstoreError):
    """An always-on note is too long, holds a secret, or names a version that does not exist."""

    code = "invalid_note"
    status = 422


class InvalidName(MemstoreError):
    """A bot, person, project or room name is not allowed (path tricks, bad characters, length)."""

    code = "invalid_name"
    status = 422


class NotAllowed(MemstoreError):
    """The caller's context may not read or write this scope."""

    code = "forbidden"
    status = 403


class MissingGrant(NotAllowed):
    """The caller's token (or its project membership) lacks the grant this call needs:
    `detail` names it (`grant`) and, for a project, the project."""

    code = "missing_grant"


class SecretRefused(MemstoreError):
    """The text or a metadata value looks like a secret (refused in every scope)."""

    code = "secret_refused"
    status = 422


class SensitiveKeyword(MemstoreError):
    """The text holds one of the workspace's sensitive keywords and the scope is shared."""

    code = "sensitive_keyword"
    status = 422


class TopicExcluded(MemstoreError):
    """The text touches a topic the person asked bots not to remember."""

    code = "topic_excluded"
    status = 422


class MemoryPaused(MemstoreError):
    """The person paused memory: nothing new is learned from their messages."""

    code = "memory_paused"
    status = 409


class HeldForReview(MemstoreError):
    """The text reads as an instruction to a model, not a fact: nothing was saved; it waits in
    the review inbox for a person to accept or reject (`detail`: held, kind, review)."""

    code = "held_for_review"
    status = 422


class InvalidTopic(MemstoreError):
    """An excluded topic that cannot be kept (blank, too long, too many)."""

    code = "invalid_topic"
    status = 422


class InvalidQuery(MemstoreError):
    """A search query that cannot be run (blank, or only spaces)."""

    code = "invalid_query"
    status = 422


class FactNotFound(MemstoreError):
    """No fact with that identity or text in the files the caller may write."""

    code = "not_found"
    status = 404


class EditConflict(MemstoreError):
    """The fact changed on disk since it was read; `detail['current']` holds what is there now."""

    code = "conflict"
    status = 409


class UnreadableFile(MemstoreError):
    """A memory file is not valid UTF-8 (or not readable); it is left alone and not written."""

    code = "unreadable_file"
    status = 409


class InvalidExchange(MemstoreError):
    """An exchange reported for learning is malformed (ids, lengths, recalled list)."""

    code = "invalid_exchange"
    status = 422


class UnknownBot(MemstoreError):
    """No bot is registered with that slug."""

    code = "bot_not_found"
    status = 404


class UnknownToken(MemstoreError):
    """No token (or more than one) starts with that prefix."""

    code = "token_not_found"
    status = 404


class IdempotencyKeyReused(MemstoreError):
    """An idempotency key was sent again with a different request."""

    code = "idempotency_key_reused"
    status = 422


class FactHeldElsewhere(FactNotFound):
    """None of the caller's shards holds the fact, but other bots' shards of a scope it reads
    do (`detail['remaining']`): it still reaches the caller's prompt until they forget it."""

    code = "held_by_other_bots"
    status = 409


class PersonUnknown(MemstoreError):
    """The person a call names is not in the people registry (nothing is created for them)."""

    code = "person_unknown"
    status = 403


class PersonNotLinked(MemstoreError):
    """The person is registered but not linked to the calling bot: it may not act for them."""

    code = "person_not_linked"
    status = 403


class RoomConflict(MemstoreError):
    """The room was first named with another kind (or, direct, another person)."""

    code = "room_conflict"
    status = 409


class TicketRefused(MemstoreError):
    """The call's room ticket is missing, malformed, expired or signed for another call."""

    code = "ticket_invalid"
    status = 401


class TicketMissing(TicketRefused):
    """This deployment wants a room ticket on every call and none was sent."""

    code = "ticket_missing"


class TicketExpired(TicketRefused):
    """The room ticket was valid once; its expiry has passed."""

    code = "ticket_expired"


class LearningUnavailable(MemstoreError):
    """Learning is off (no model configured) or today's token budget is spent (a state of the
    workspace the caller can't change by retrying at once, not a server failure)."""

    code = "learning_unavailable"
    status = 409


class ModelFailed(MemstoreError):
    """The learning model's endpoint failed or answered with something unusable."""

    code = "model_failed"
    status = 502


class FactProtected(MemstoreError):
    """Upkeep or synthesis tried to change a fact saved on purpose (pinned, or not machine-made)."""

    code = "fact_protected"
    status = 409


class DatabaseUnavailable(MemstoreError):
    """The database (the index, the queue, the registry) can't be reached right now; the
    files are untouched. Retry shortly: the server reconnects (and restarts an embedded
    Postgres) by itself."""

    code = "database_unavailable"
    status = 503


class MemoryVolumeError(MemstoreError):
    """The memory volume (MEMORY_ROOT) refused a write; nothing was written. Reads still work."""

    code = "memory_volume_error"
    status = 503


class MemoryVolumeFull(MemoryVolumeError):
    """No space (or quota) left on the memory volume."""

    code = "memory_volume_full"
    status = 507


class MemoryVolumeReadOnly(MemoryVolumeError):
    """The memory volume is mounted read-only (or refuses writes)."""

    code = "memory_volume_read_only"
    status = 503


class OAuthRefused(MemstoreError):
    """An OAuth request is refused: `error` is the RFC 6749 / 7591 error code (invalid_grant,
    invalid_client, invalid_request, invalid_scope, invalid_redirect_uri, …) the client gets.

    `redirect` is False when the error must be shown to the person instead of sent back to the
    client (an unknown client or a redirect URI it did not register: RFC 6749 §4.1.2.1)."""

    code = "oauth_refused"
    status = 400

    def __init__(self, error: str, message: str, *, redirect: bool = True, status: int = 400):
        super().__init__(message)
        self.error = error
        self.redirect = redirect
        self.status = status


class NotShareable(MemstoreError):
    """This memory can't be shared with the workspace: it is shared already, or was replaced,
    forgotten or has expired (the message says which)."""

    code = "not_shareable"
    status = 409


class MemoryToolRefused(MemstoreError):
    """A memory-tool command (Claude's `memory_20250818`) that can't be carried out: an unknown
    path, a text to replace that is not there once, a delete or rename of a scope's file."""

    code = "memory_tool_refused"
    status = 422


class CursorUnknown(MemstoreError):
    """A change-feed cursor past the newest event: it came from another feed (the database was
    replaced and the histories numbered anew)."""

    code = "cursor_unknown"
    status = 409
