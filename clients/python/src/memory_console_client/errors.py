"""The exceptions a call raises: one per kind of answer a caller would branch on.

Every refusal of the API is JSON `{code, message, detail}`; it becomes a `MemoryConsoleError`
carrying those and the HTTP status, of the subclass that fits the status. Branch on the class
for the kind of failure and on `.code` (stable) for the exact reason.
"""

from typing import Any


class MemoryConsoleError(Exception):
    """A refused or failed call: `.status` (HTTP; 0 when no answer came), `.code` (stable, e.g.
    `person_not_linked`), `.message` (for a person), `.detail` (e.g. `current`, `remaining`)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        detail: dict[str, Any] | None = None,
        *,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}" if status else f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.detail: dict[str, Any] = detail or {}
        self.retry_after = retry_after


class InvalidRequestError(MemoryConsoleError):
    """400, 411, 413 or 422: the request itself is wrong (`detail["errors"]` lists each
    problem), a secret or an excluded topic was refused, an idempotency key was reused."""


class AuthenticationError(MemoryConsoleError):
    """401: no token, an unknown or revoked one, or a room ticket missing, invalid or expired."""


class PermissionDeniedError(MemoryConsoleError):
    """403: this room may not use that scope or project, or the person is unknown
    (`person_unknown`) or not linked to the bot (`person_not_linked`)."""


class NotFoundError(MemoryConsoleError):
    """404: no such fact in what the bot may change here."""


class ConflictError(MemoryConsoleError):
    """409: the fact changed meanwhile (`conflict`, `detail["current"]`), the room was first
    named with another kind or person (`room_conflict`), only other bots hold the fact
    (`held_by_other_bots`, `detail["remaining"]`), a file a person must fix, memory paused."""


class RateLimitError(MemoryConsoleError):
    """429: too many calls; `.retry_after` says how many seconds to wait when the server said."""


class ServerError(MemoryConsoleError):
    """5xx: the server failed (500), or could not reach the model (502) or its storage (507)."""


class UnavailableError(ServerError):
    """503: the database or the memory volume is unavailable; nothing was changed. Retry after
    `.retry_after` seconds."""


class ConnectionFailedError(MemoryConsoleError):
    """No answer at all: the server could not be reached, or it did not answer in time
    (`.status` 0, `.code` `connection_failed` or `timeout`)."""


_BY_STATUS: dict[int, type[MemoryConsoleError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    411: InvalidRequestError,
    413: InvalidRequestError,
    422: InvalidRequestError,
    429: RateLimitError,
    503: UnavailableError,
}


def error_class(status: int) -> type[MemoryConsoleError]:
    """The exception class for an HTTP status the API refused or failed a call with."""
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    if status >= 500:
        return ServerError
    if status >= 400:
        return InvalidRequestError
    return MemoryConsoleError
