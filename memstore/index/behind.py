"""Syncs too large for a read's time budget, finished on one background thread of this process.

Owns: the per-process queue of memory files a bounded sync (`sync.sync_bounded`) handed over,
the thread that syncs them (with no time limit, each bot's files under its lock as usual), and
`behind_busy`, which tells a read that a bot's files are being synced here so it answers from
the index as it stands instead of waiting on that bot's lock; and `behind_facts`, how many facts
the files handed over hold beyond what the index has of them (counted by the thread before it
syncs them: fact-shaped lines less the file's indexed count) and since when they wait; after a
hand-over of more than `BULK_FACTS` new facts, the fact table's statistics are taken again. A file
that fails is dropped from the queue and logged; the next read that finds it changed hands it
over again.

Does not: decide what is too large (sync does), or parse and write rows (the `run` it is given).
"""

import logging
import threading
import time
from collections.abc import Callable, Iterable

from django.db import connection

from memstore.facts.markdown import parse_line
from memstore.facts.paths import locate, memory_root
from memstore.models import MemoryFile

logger = logging.getLogger(__name__)

_pending: dict[str, Callable[[], object] | None] = {}  # path -> what to call once it is synced
_bots: set[str] = set()  # writing bots of the files pending or being synced
_counted: dict[str, tuple[str, int]] = {}  # path -> (scope key, facts not indexed yet)
_since: list[float] = []  # when the oldest hand-over still pending was made (time.time())
_lock = threading.Lock()
BULK_FACTS = 5_000  # new facts in one hand-over past which the fact table is analyzed again
_idle = threading.Condition(_lock)
_thread: threading.Thread | None = None


def behind_sync(
    rels: list[str], run: Callable[[list[str]], None], *, then: Callable[[], object] | None = None
) -> None:
    """Queue these files for the background thread (started if needed), which calls `run` on
    them and then `then()`."""
    global _thread
    with _lock:
        if not _since:
            _since.append(time.time())
        for rel in rels:
            _pending[rel] = then
            if (location := locate(rel)) is not None:
                _bots.add(location.shard.bot)
        if _thread is None:
            _thread = threading.Thread(
                target=_work, args=(run,), name="memstore-sync-behind", daemon=True
            )
            _thread.start()


def behind_busy(bot: str) -> bool:
    """Whether this process is syncing (or about to sync) some of `bot`'s files."""
    with _lock:
        return bot in _bots


def behind_facts(keys: Iterable[str] | None = None) -> tuple[int, int, float | None]:
    """Facts in files handed over here that the index does not hold yet (of these scope keys;
    all without); how many files handed over are not counted yet (the thread counts each
    just before it syncs it); and when the oldest hand-over still pending was made (None:
    nothing waits)."""
    wanted = None if keys is None else set(keys)

    def mine(rel: str) -> bool:
        if wanted is None:
            return True
        location = locate(rel)
        return location is not None and str(location.shard.scope) in wanted

    with _lock:
        facts = sum(n for key, n in _counted.values() if wanted is None or key in wanted)
        uncounted = sum(1 for rel in _pending if rel not in _counted and mine(rel))
        return facts, uncounted, (_since[0] if _since and (_pending or _bots) else None)


def _count(rels: list[str]) -> None:
    """Count what each file holds beyond its indexed facts (before the sync reads it)."""
    indexed = dict(MemoryFile.objects.filter(path__in=rels).values_list("path", "fact_count"))
    root = memory_root()
    for rel in rels:
        location = locate(rel)
        try:
            text = (root / rel).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
        # Lines not starting "- (" are no facts: only the others are parsed (the one grammar).
        lines = sum(
            1 for raw in text.splitlines() if "- (" in raw[:4] and parse_line(raw) is not None
        )
        key = str(location.shard.scope) if location is not None else ""
        with _lock:
            _counted[rel] = (key, max(0, lines - indexed.get(rel, 0)))


def _statistics_refresh(rels: list[str]) -> None:
    """Have Postgres take the fact table's statistics again after a big hand-over: autovacuum may
    have taken them while the drop-in was being written (a few rows on many pages) and not again
    for minutes, and every plan made meanwhile believes the table nearly empty (a nested loop over
    a million rows for what an index answers)."""
    with _lock:
        added = sum(_counted.get(rel, ("", 0))[1] for rel in rels)
    if added >= BULK_FACTS:
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE memstore_fact")


def behind_wait(timeout: float | None = None) -> bool:
    """Wait until nothing is queued or being synced (tests, benchmarks); False on timeout."""
    with _idle:
        return _idle.wait_for(lambda: not _bots and not _pending, timeout)


def _work(run: Callable[[list[str]], None]) -> None:
    global _thread
    try:
        while True:
            with _lock:
                rels = list(_pending)
                thens = {id(then): then for then in _pending.values() if then is not None}
                _pending.clear()
                if not rels:
                    # Under the lock: a file handed over from now on starts a new thread.
                    _bots.clear()
                    _counted.clear()
                    _since.clear()
                    _thread = None
                    _idle.notify_all()
                    return
            try:
                _count(rels)
                run(rels)
                _statistics_refresh(rels)
                for then in thens.values():
                    then()
            except Exception:
                logger.exception("background sync of %d files failed", len(rels))
            finally:
                with _lock:
                    for rel in rels:
                        _counted.pop(rel, None)
    finally:
        connection.close()  # this thread's own connection
        with _lock:
            if _thread is threading.current_thread():  # died of something worse than an error
                _thread = None
                _pending.clear()
                _bots.clear()
                _counted.clear()
                _since.clear()
                _idle.notify_all()
