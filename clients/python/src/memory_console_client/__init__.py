"""Typed clients for the Memory Console bots' API: `Client` (sync) and `AsyncClient` (asyncio).

    from memory_console_client import Client

    with Client(url, token, room_id="dm-42", room_kind="direct", person="alice") as memory:
        section = memory.prompt()["text"]

Results are TypedDicts (`memory_console_client.results`); refusals are `MemoryConsoleError`
subclasses carrying the API's `code` (`memory_console_client.errors`). The HTTP plumbing shared
by both clients is in `calls`.
"""

from memory_console_client.async_client import AsyncClient
from memory_console_client.client import Client
from memory_console_client.errors import (
    AuthenticationError,
    ConflictError,
    ConnectionFailedError,
    InvalidRequestError,
    MemoryConsoleError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    UnavailableError,
)
from memory_console_client.results import (
    ChangeEvent,
    Changes,
    ExchangeReceipt,
    Fact,
    FactPage,
    Feedback,
    Forgetting,
    ListedFact,
    Prompt,
    PromptChanges,
    Recall,
    Remembered,
    SavedFact,
    Sources,
)

__version__ = "0.1.0"

__all__ = [
    "AsyncClient",
    "AuthenticationError",
    "ChangeEvent",
    "Changes",
    "Client",
    "ConflictError",
    "ConnectionFailedError",
    "ExchangeReceipt",
    "Fact",
    "FactPage",
    "Feedback",
    "Forgetting",
    "InvalidRequestError",
    "ListedFact",
    "MemoryConsoleError",
    "NotFoundError",
    "PermissionDeniedError",
    "Prompt",
    "PromptChanges",
    "RateLimitError",
    "Recall",
    "Remembered",
    "SavedFact",
    "ServerError",
    "Sources",
    "UnavailableError",
]
