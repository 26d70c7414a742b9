"""The change feed's rows: every shard's `history.jsonl` line, numbered once in the order the
feed first read it (`ChangeEvent.id`, the feed's cursor).

`events_ingest` reads what the given shards' histories gained since last time (`HistoryRead`:
inode, bytes and lines read) and inserts one row per new line, under one advisory lock held to
its commit, so numbers become visible in order: a reader that saw event N never later sees a
new event below N. An erase rewrites a history line for line (tombstones), under a new inode:
the feed then skips the lines it had read by count, and the erase redacts the rows itself
(`memstore.privacy.record_stores.ChangeEvents`). `reindex` leaves these rows alone, so a
cursor outlives a rebuild; they are rebuilt from the histories only if the database is
replaced (then numbered anew; `feed_max` lets a reader tell a cursor from another feed).

`events_written` numbers a shard's new lines right after a write or a recorded hand edit (so
the feed keeps the order things happened in), then `events_kick` asks the webhook dispatcher (`memstore.feed.jobs`) to run, after a write and
after a sync that recorded a hand edit, when any endpoint is registered. It does not decide
who may read an event (`memstore.feed.read` and `memstore.feed.dispatch` do).
"""

import logging
import os
import time
from collections.abc import Iterable
from pathlib import Path

from django.db import DatabaseError, connection, transaction

from memstore.facts.history import change_parse, history_path
from memstore.facts.paths import Shard, memory_root
from memstore.models import ChangeEvent, HistoryRead, WebhookEndpoint

logger = logging.getLogger(__name__)
FEED_LOCK = 0x6D656D66656564  # one number for every process: the feed's ingest lock
DISPATCH_TASK = "memstore.feed.dispatch"
DISPATCH_LOCK = "feed-dispatch"
ENDPOINTS_CHECK_S = 2.0  # how long a process trusts "no endpoint is registered"

_endpoints: dict[str, tuple[float, bool]] = {}  # database -> (checked at, any active endpoint)


def events_ingest(shards: Iterable[Shard], *, wait: bool = True) -> int:
    """Number the new history lines of these shards as feed events; how many. Costs a stat per
    shard and one query when no history grew. `wait=False` (a writer numbering its own lines
    right away, so the feed keeps the order of the writes): if another ingest holds the lock,
    leave them to the next reader or dispatch run instead of waiting."""
    root = memory_root()
    wanted = {shard.rel: shard for shard in shards}
    stats = {}
    for rel, shard in wanted.items():
        try:
            st = os.stat(history_path(root, shard))
        except (FileNotFoundError, NotADirectoryError):
            continue
        stats[rel] = (st.st_ino, st.st_size)
    if not stats:
        return 0
    known = dict(
        (path, (inode, size))
        for path, inode, size in HistoryRead.objects.filter(path__in=stats).values_list(
            "path", "inode", "size"
        )
    )
    behind = sorted(rel for rel, stat in stats.items() if known.get(rel) != stat)
    if not behind:
        return 0
    count = 0
    with transaction.atomic(), connection.cursor() as cursor:
        # Held to the commit: the numbers of one ingest are visible before the next one's.
        take = "pg_advisory_xact_lock(%s) IS NULL" if wait else "pg_try_advisory_xact_lock(%s)"
        cursor.execute(f"SELECT {take}", [FEED_LOCK])
        if not cursor.fetchone()[0]:
            return 0
        reads = {read.path: read for read in HistoryRead.objects.filter(path__in=behind)}
        for rel in behind:
            count += _ingest(root, wanted[rel], reads.get(rel) or HistoryRead(path=rel))
    return count


def _ingest(root: Path, shard: Shard, read: HistoryRead) -> int:
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
        return 0
    complete = data.rfind(b"\n") + 1  # a half-written last line waits for the next ingest
    raws = data[:complete].split(b"\n")[:-1] if complete else []
    events = [_event(shard, change) for raw in raws if (change := change_parse(raw)) is not None]
    ChangeEvent.objects.bulk_create(events)
    read.inode, read.size, read.lines = st.st_ino, start + complete, lines + len(raws)
    read.save()
    return len(events)


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


def events_written(shard: Shard) -> None:
    """After a write or a recorded hand edit in `shard`: number its new history lines now
    (never waiting) and wake the webhooks' dispatcher."""
    try:
        events_ingest([shard], wait=False)
    except DatabaseError as error:  # the feed's readers number them later: the write stands
        logger.warning("could not number the feed's new events: %s", error)
    events_kick()


def events_kick() -> None:
    """Queue one webhook dispatch run (at most one waits) when an endpoint is registered.
    Never raises: the periodic dispatch catches up on what a failed kick left."""
    from procrastinate.contrib.django import app
    from procrastinate.exceptions import AlreadyEnqueued

    db = connection.settings_dict["NAME"]
    now = time.monotonic()
    checked, any_endpoint = _endpoints.get(db, (-ENDPOINTS_CHECK_S, False))
    try:
        if now - checked >= ENDPOINTS_CHECK_S:
            any_endpoint = WebhookEndpoint.objects.filter(active=True).exists()
            _endpoints[db] = (now, any_endpoint)
        if not any_endpoint:
            return
        # A savepoint: a refused insert (one run is already queued) must not abort the write.
        with transaction.atomic():
            app.configure_task(name=DISPATCH_TASK, queueing_lock=DISPATCH_LOCK).defer()
    except AlreadyEnqueued:
        return
    except DatabaseError as error:
        logger.warning("could not queue the webhook dispatch: %s", error)


def endpoints_changed() -> None:
    """Forget this process's "no endpoint" answer (an endpoint was just registered)."""
    _endpoints.clear()
