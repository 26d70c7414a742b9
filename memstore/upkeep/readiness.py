"""Can this server do its work right now? The database, the memory volume and the learning
queue, as `GET /api/v1/health` and the console's home page report them.

`server_health` asks the database one short question under a statement timeout (a dead or
unreachable database is "unavailable", never an exception), statvfs's the memory volume, and
reads the learning queue's backlog: how many exchanges wait and how long the oldest has, and
how many workers sent a heartbeat lately. It decides nothing about HTTP statuses; the API does.
"""

import logging
import time
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from memstore.facts.volume import VolumeState, volume_state
from memstore.learning.queue import QUEUE, STALLED_AFTER
from memstore.models import Exchange

logger = logging.getLogger(__name__)

CHECK_MS = 1000  # the database question's statement timeout


@dataclass(frozen=True, slots=True)
class QueueState:
    """The learning queue: exchanges waiting, the oldest one's age, live workers."""

    waiting: int
    oldest_seconds: float | None
    workers: int


@dataclass(frozen=True, slots=True)
class ServerHealth:
    """What the server can do now: `database` ok | unavailable; `volume` its state."""

    database: str
    database_ms: float
    database_error: str
    volume: VolumeState
    queue: QueueState | None  # None while the database is unavailable

    @property
    def problems(self) -> list[str]:
        """Stable codes of what is wrong: database_unavailable, memory_volume_full…"""
        found = ["database_unavailable"] if self.database != "ok" else []
        return found + ([self.volume.problem] if self.volume.problem else [])


def server_health() -> ServerHealth:
    """The database, the memory volume and the learning queue, now."""
    started = time.monotonic()
    queue, error = None, ""
    try:
        queue = _queue_state()
    except DatabaseError as exc:
        error = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        logger.warning("health: database unavailable: %s", error)
    return ServerHealth(
        database="ok" if queue is not None else "unavailable",
        database_ms=round((time.monotonic() - started) * 1000, 1),
        database_error=error,
        volume=volume_state(settings.MEMORY_ROOT),
        queue=queue,
    )


def _queue_state() -> QueueState:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT set_config('statement_timeout', %s, true)", [f"{CHECK_MS}ms"])
        cursor.execute(_QUEUE_SQL, [f"{STALLED_AFTER} seconds", QUEUE])
        waiting, oldest, workers = cursor.fetchone()
    return QueueState(waiting=waiting, oldest_seconds=_age(oldest), workers=workers)


def _age(oldest: datetime | None) -> float | None:
    return None if oldest is None else round((timezone.now() - oldest).total_seconds(), 1)


# The jobs table holds only unfinished jobs (finished ones are deleted), so this stays small.
_QUEUE_SQL = f"""
    SELECT count(*), min(e.created_at),
           (SELECT count(*) FROM procrastinate_workers
            WHERE last_heartbeat > now() - %s::interval)
    FROM procrastinate_jobs j
    LEFT JOIN {Exchange._meta.db_table} e ON e.id = (j.args->>'exchange_id')::bigint
    WHERE j.queue_name = %s AND j.status = 'todo'
"""


def memory_volume_notice() -> tuple[str, str]:
    """(code, sentence for a person) when the memory volume refuses writes, else ("", "")."""
    state = volume_state(settings.MEMORY_ROOT)
    if state.read_only:
        return state.problem, (
            "The memory volume is read-only: every save is refused (nothing is lost, and "
            "reading memory works). Remount the volume holding MEMORY_ROOT read-write."
        )
    if state.full:
        return state.problem, (
            f"The memory volume is nearly full ({state.free_bytes // 1024:,} KiB left): saves "
            "are refused once it can't take them (nothing half-written; reading memory works). "
            "Free space on the volume holding MEMORY_ROOT."
        )
    return "", ""
