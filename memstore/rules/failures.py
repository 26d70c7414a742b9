"""Writes that were refused or failed, kept so that nothing fails quietly.

One JSON object per line in `MEMORY_ROOT/failures.jsonl`, appended and never rewritten, beside
the memory it is about (so it travels with backups like the shards' histories do). The write
services wear `refusals_recorded`, so a refusal is recorded once, where it is raised, whichever
front door (API, console, learner, commands) called; the console lists the newest with
`failures_recent`. A refused text is never recorded: only the error's code and message, and a
message never quotes a secret.
"""

import functools
import inspect
import json
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings

from memstore.errors import EditConflict, FactNotFound, MemoryVolumeError, MemstoreError
from memstore.facts.activity import lines_backwards
from memstore.facts.files import file_open
from memstore.facts.paths import locate
from memstore.rules.policy import secret_kind

logger = logging.getLogger(__name__)

FAILURES_FILE = "failures.jsonl"
_WITHHELD = "Refused; the message is not kept because it quoted what looks like a secret."
# Not refusals: a conflict is shown to the writer with the current text, and "not found" is an
# answer (the fact is already gone), not something that failed. A full or read-only memory
# volume could not take the record either: Health and the home page show that state instead.
_NOT_REFUSALS = (EditConflict, FactNotFound, MemoryVolumeError)
_ROOM: ContextVar[str] = ContextVar("failure_room", default="")


@dataclass(frozen=True, slots=True)
class Failure:
    """One refused or failed write: when, which bot's memory, what was refused and why."""

    at: str
    bot: str
    op: str  # remember | edit | forget | restore | clear | learn ...
    code: str  # the MemstoreError code, e.g. secret_refused
    message: str
    by: str = ""
    via: str = ""
    room: str = ""

    @property
    def when(self) -> datetime | None:
        """`at` as a datetime (None if unreadable)."""
        try:
            return datetime.fromisoformat(self.at)
        except ValueError:
            return None


def failure_record(
    *,
    root: Path,
    bot: str,
    op: str,
    error: MemstoreError,
    by: str = "",
    via: str = "",
    room: str = "",
) -> Failure:
    """Append a refused write to the workspace's failure log (one O_APPEND write). An error
    already recorded (by the service that raised it) is not recorded twice."""
    failure = Failure(
        at=datetime.now(UTC).isoformat(timespec="seconds"),
        bot=bot,
        op=op,
        code=error.code,
        # A message quoting a bad value (metadata that failed validation) could quote a secret.
        message=_WITHHELD if secret_kind(error.message) else error.message,
        by=by,
        via=via,
        room=room or _ROOM.get(),
    )
    if getattr(error, "recorded", False):
        return failure
    error.recorded = True  # type: ignore[attr-defined]
    try:
        fd = file_open(root / FAILURES_FILE, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, (json.dumps(asdict(failure), ensure_ascii=False) + "\n").encode("utf-8"))
        finally:
            os.close(fd)
    except OSError as exc:  # a full or read-only volume: the refusal itself is what answers
        logger.warning("failure not recorded (%s): %s %s", exc.strerror, failure.op, failure.code)
    return failure


def failures_recent(*, root: Path, limit: int = 20, bots: set[str] | None = None) -> list[Failure]:
    """The newest recorded failures, newest first (optionally only for some bots)."""
    found: list[Failure] = []
    for _, line in lines_backwards(root / FAILURES_FILE, None):
        try:
            record = json.loads(line)
            failure = Failure(**{k: str(record.get(k, "")) for k in Failure.__dataclass_fields__})
        except (ValueError, TypeError, AttributeError):
            continue
        if bots is None or failure.bot in bots:
            found.append(failure)
        if len(found) == limit:
            break
    return found


@contextmanager
def failure_room(room: str) -> Iterator[None]:
    """Refusals recorded inside this block name this room (front doors that know it set it)."""
    token = _ROOM.set(room)
    try:
        yield
    finally:
        _ROOM.reset(token)


def refusals_recorded[F: Callable](op: str) -> Callable[[F], F]:
    """Record every refusal (a MemstoreError but a conflict or "not found") the decorated write
    raises. The bot is read from its `shard`, `shards`, `bot`, `ctx` or `change` argument."""

    def decorate(func: F) -> F:
        signature = inspect.signature(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            given = bound.arguments
            ctx = given.get("ctx")
            with failure_room(ctx.room.id) if ctx is not None else _same_room():
                try:
                    return func(*args, **kwargs)
                except _NOT_REFUSALS:
                    raise
                except MemstoreError as error:
                    failure_record(
                        root=Path(settings.MEMORY_ROOT),
                        bot=_bot_of(given),
                        op=op,
                        error=error,
                        by=str(given.get("by") or (ctx.bot if ctx is not None else "")),
                        via=str(given.get("via") or ""),
                    )
                    raise

        return wrapper  # type: ignore[return-value]

    return decorate


@contextmanager
def _same_room() -> Iterator[None]:
    yield


def _bot_of(given: dict) -> str:
    if (shard := given.get("shard")) is not None:
        return shard.bot
    if shards := given.get("shards"):
        return shards[0].bot
    if (ctx := given.get("ctx")) is not None:
        return ctx.bot
    if (change := given.get("change")) is not None:
        location = locate(change.file)
        return location.shard.bot if location else ""
    return str(given.get("bot") or "")
