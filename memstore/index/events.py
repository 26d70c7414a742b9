"""The change feed's rows: every shard's `history.jsonl` line, numbered once when the feed first
reads it (`ChangeEvent.id`, the feed's cursor).

`events_ingest` reads what the given shards' histories gained since last time (`HistoryRead`:
inode, bytes and lines read) and inserts one row per new line, under one advisory lock held to
its commit, so numbers become visible in order: a reader that saw event N never later sees a
new event below N. An erase rewrites a history line for line (tombstones), under a new inode:
the feed then skips the lines it had read by count, and the erase redacts the rows itself
(`memstore.privacy.record_stores.ChangeEvents`). `reindex` leaves these rows alone, so a
cursor outlives a rebuild; they are rebuilt from the histories only if the database is
replaced (then numbered anew; `feed_max` lets a reader tell a cursor from another feed).

An ingest reads every shard's history by default, so the feed numbers lines in the order they
were recorded whichever room reads first. `events_kick` (after a write and after a sync that
recorded a hand edit) wakes a thread of this process that asks the webhook dispatcher
(`memstore.feed.jobs`) to run when any endpoint is registered: the writer pays no statement.
It does not decide who may read an event (`memstore.feed.audience` does).
"""

import logging
import os
import threading
from collections.abc import Iterable
from pathlib import Path

from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from memstore.facts.activity import workspace_shards
from memstore.facts.history import change_parse, history_path
from memstore.facts.paths import Shard, memory_root
from memstore.models import ChangeEvent, Fact, HistoryRead, MemoryFile, WebhookEndpoint

logger = logging.getLogger(__name__)
FEED_LOCK = 0x6D656D66656564  # one number for every process: the feed's ingest lock
DISPATCH_TASK = "memstore.feed.dispatch"
DISPATCH_LOCK = "feed-dispatch"

# (database, memory root, history path) -> (inode, size) the feed has read to the end
_numbered: dict[tuple[str, str, str], tuple[int, int]] = {}
_lock = threading.Lock()
_idle = threading.Condition(_lock)
_kicked = threading.Event()
_thread: threading.Thread | None = None


# An `until` day passing is written nowhere: the feed records it as an `expire` event, once per
# fact and scope, the first time an ingest runs on a day after it (from the index's rows).
_EXPIRED_SQL = f"""
    INSERT INTO {ChangeEvent._meta.db_table}
        (scope_key, shard_bot, op, fact_id, old_fact_id, file, line, old_line, by, via, at)
    SELECT f.scope_key, f.shard_bot, 'expire', f.fact_id, '', m.path, f.line, '', '', 'until',
           f.meta ->> 'until'
    FROM {Fact._meta.db_table} f JOIN {MemoryFile._meta.db_table} m ON m.id = f.file_id
    WHERE f.meta ? 'until' AND f.meta ->> 'until' < %s
      AND NOT EXISTS (SELECT 1 FROM {ChangeEvent._meta.db_table} e
                      WHERE e.scope_key = f.scope_key AND e.fact_id = f.fact_id
                        AND e.op = 'expire')
    ORDER BY f.meta ->> 'until', f.id
"""
_expiries_seen: dict[tuple[str, str], str] = {}  # (database, root) -> the day last recorded


def expiries_record(today: str) -> int:
    """Record as `expire` events the facts whose `until` day is before `today` (YYYY-MM-DD)
    and that have none yet; how many. Once a day per process: the day's first read pays it."""
    where = (connection.settings_dict["NAME"], str(memory_root()))
    if _expiries_seen.get(where) == today:
        return 0
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [FEED_LOCK])
        cursor.execute(_EXPIRED_SQL, [today])
        added = cursor.rowcount
    _expiries_seen[where] = today
    return added


def events_ingest(shards: Iterable[Shard] | None = None) -> int:
    """Number the new history lines of these shards (every shard on disk without) as feed
    events, in the order they were recorded, then (once a day) the day's expiries
    (`expiries_record`); how many. Costs a stat per shard and one query when no history grew."""
    added = _histories_ingest(shards)
    return added + expiries_record(timezone.localdate().isoformat())


def _histories_ingest(shards: Iterable[Shard] | None) -> int:
    root = memory_root()
    wanted = {s.rel: s for s in (workspace_shards(root) if shards is None else shards)}
    stats = {}
    for rel, shard in wanted.items():
        try:
            st = os.stat(history_path(root, shard))
        except (FileNotFoundError, NotADirectoryError):
            continue
        stats[rel] = (st.st_ino, st.st_size)
    # What this process numbered last time: unchanged histories cost no query at all.
    where = (connection.settings_dict["NAME"], str(root))
    stats = {rel: stat for rel, stat in stats.items() if _numbered.get((*where, rel)) != stat}
    if not stats:
        return 0
    known = {
        path: (inode, size)
        for path, inode, size in HistoryRead.objects.filter(path__in=stats).values_list(
            "path", "inode", "size"
        )
    }
    behind = sorted(rel for rel, stat in stats.items() if known.get(rel) != stat)
    _numbered.update(((*where, rel), stat) for rel, stat in stats.items() if known.get(rel) == stat)
    if not behind:
        return 0
    with transaction.atomic(), connection.cursor() as cursor:
        # Held to the commit: the numbers of one ingest are visible before the next one's.
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [FEED_LOCK])
        reads = {read.path: read for read in HistoryRead.objects.filter(path__in=behind)}
        events: list[ChangeEvent] = []
        for rel in behind:
            events += _ingest(root, wanted[rel], reads.get(rel) or HistoryRead(path=rel))
        # Every shard's new lines in one order: when they were recorded (a stable sort keeps
        # each file's own order for equal stamps).
        events.sort(key=lambda event: event.at)
        ChangeEvent.objects.bulk_create(events)
    return len(events)


def _ingest(root: Path, shard: Shard, read: HistoryRead) -> list[ChangeEvent]:
    try:
        with open(history_path(root, shard), "rb") as handle:
            st = os.fstat(handle.fileno())
            if read.inode == st.st_ino and read.size <= st.st_size:
                handle.seek(read.size)
                start, data, lines = read.size, handle.read(), read.lines
            else:  # rewritten (an erase): go on after the lines already read
                whole = handle.read()
                start, lines = _after_lines(whole, read.lines)
                data = whole[start:]
    except (FileNotFoundError, NotADirectoryError):
        return []
    complete = data.rfind(b"\n") + 1  # a half-written last line waits for the next ingest
    raws = data[:complete].split(b"\n")[:-1] if complete else []
    read.inode, read.size, read.lines = st.st_ino, start + complete, lines + len(raws)
    read.save()
    return [_event(shard, change) for raw in raws if (change := change_parse(raw)) is not None]


def _after_lines(data: bytes, lines: int) -> tuple[int, int]:
    # The byte offset after the first `lines` complete lines, and how many there were.
    offset = 0
    for done in range(lines):
        end = data.find(b"\n", offset)
        if end < 0:
            return offset, done
        offset = end + 1
    return offset, lines


def _event(shard: Shard, change) -> ChangeEvent:
    return ChangeEvent(
        scope_key=str(shard.scope),
        shard_bot=shard.bot,
        op=change.op[:16],
        fact_id=change.fact_id[:16],
        old_fact_id=change.old_fact_id[:16],
        file=change.file[:300],
        line=change.line,
        old_line=change.old_line,
        by=change.by[:200],
        via=change.via[:40],
        at=change.at[:40],
    )


def feed_max() -> int:
    """The newest event's number (0 for an empty feed)."""
    last = ChangeEvent.objects.order_by("-id").values_list("id", flat=True).first()
    return last or 0


def events_kick() -> None:
    """After a write or a recorded hand edit: wake this process's kick thread, which queues
    one webhook dispatch run (at most one waits) when an endpoint is registered. Costs the
    writer no statement; never raises (the periodic dispatch catches up on a lost kick)."""
    global _thread
    with _lock:
        _kicked.set()
        if _thread is None:
            _thread = threading.Thread(target=_kick_work, name="memstore-feed-kick", daemon=True)
            _thread.start()


def _kick_work() -> None:
    global _thread
    try:
        while True:
            with _lock:
                if not _kicked.is_set():
                    _thread = None  # under the lock: a kick from now on starts a new thread
                    _idle.notify_all()
                    return
                _kicked.clear()
            try:
                dispatch_wanted()
            except Exception:
                logger.exception("could not queue the webhook dispatch")
    finally:
        connection.close()  # this thread's own connection
        with _lock:
            if _thread is threading.current_thread():
                _thread = None
                _idle.notify_all()


def events_kick_wait(timeout: float | None = None) -> bool:
    """Wait until this process's kick thread is done (tests); False on timeout."""
    with _idle:
        return _idle.wait_for(lambda: _thread is None, timeout)


def dispatch_wanted() -> bool:
    """Queue a dispatch run if an endpoint is registered and none waits; True if queued."""
    from procrastinate.contrib.django import app
    from procrastinate.exceptions import AlreadyEnqueued

    if not WebhookEndpoint.objects.filter(active=True).exists():
        return False
    try:
        # A savepoint: a refused insert (one run is already queued) must not abort a caller's.
        with transaction.atomic():
            app.configure_task(name=DISPATCH_TASK, queueing_lock=DISPATCH_LOCK).defer()
    except AlreadyEnqueued:
        return False
    except DatabaseError as error:
        logger.warning("could not queue the webhook dispatch: %s", error)
        return False
    return True
