"""How often each fact is recalled and put into a prompt: counted in memory, written in batches.

A bot's recall or prompt notes the facts it returned (`usage_note`); the counts wait in this
process and go to `FactUsage` in one upsert when enough have gathered (USAGE_FLUSH_NOTES facts,
20,000 by default: a prompt notes up to ~230 facts, and flushing every 500 cost an API prompt 3 ms
of its 8) or enough time has passed (USAGE_FLUSH_SECONDS, 30), and at exit. So a read costs a dict update,
not a write. A process killed hard loses at most one batch of counts: usage steers upkeep and
the health report, it is not an audit log. Readers flush this process's counts first.
"""

import atexit
import contextlib
import threading
import time
from collections.abc import Iterable
from datetime import datetime

from django.conf import settings
from django.db import connection
from django.utils import timezone

from memstore.facts.records import StoredFact
from memstore.models import FactUsage

_lock = threading.Lock()
_pending: dict[tuple[str, str], list[int]] = {}
_last_flush = [time.monotonic()]

_UPSERT = """
INSERT INTO memstore_factusage (scope_key, fact_id, recalled, prompted, last_used)
SELECT * FROM unnest(%s::varchar[], %s::varchar[], %s::int[], %s::int[], %s::timestamptz[])
ON CONFLICT (scope_key, fact_id) DO UPDATE SET
    recalled = memstore_factusage.recalled + EXCLUDED.recalled,
    prompted = memstore_factusage.prompted + EXCLUDED.prompted,
    last_used = GREATEST(memstore_factusage.last_used, EXCLUDED.last_used)
"""


def usage_note(*, recalled: Iterable[StoredFact] = (), prompted: Iterable[StoredFact] = ()) -> None:
    """Count facts a bot's recall returned or its prompt section held (written in batches)."""
    with _lock:
        for facts, column in ((recalled, 0), (prompted, 1)):
            for fact in facts:
                counts = _pending.setdefault((fact.scope, fact.fact_id), [0, 0])
                counts[column] += 1
        due = len(_pending) >= settings.USAGE_FLUSH_NOTES or (
            time.monotonic() - _last_flush[0] >= settings.USAGE_FLUSH_SECONDS
        )
    if due:
        usage_flush()


def usage_flush() -> int:
    """Write this process's pending counts in one statement; returns how many facts."""
    with _lock:
        batch = dict(_pending)
        _pending.clear()
        _last_flush[0] = time.monotonic()
    if not batch:
        return 0
    now = timezone.now()
    keys = sorted(batch)
    with connection.cursor() as cursor:
        cursor.execute(
            _UPSERT,
            [
                [k[0] for k in keys],
                [k[1] for k in keys],
                [batch[k][0] for k in keys],
                [batch[k][1] for k in keys],
                [now] * len(keys),
            ],
        )
    return len(keys)


def usage_of(*, scope_keys: Iterable[str]) -> dict[tuple[str, str], FactUsage]:
    """Usage rows of these scopes by (scope, fact id), after flushing this process's counts."""
    usage_flush()
    rows = FactUsage.objects.filter(scope_key__in=list(scope_keys))
    return {(r.scope_key, r.fact_id): r for r in rows}


def last_used(usage: dict[tuple[str, str], FactUsage], fact: StoredFact) -> datetime | None:
    """When a fact was last recalled or prompted, or None if never."""
    row = usage.get((fact.scope, fact.fact_id))
    return row.last_used if row else None


def _flush_at_exit() -> None:
    # The database may be gone at interpreter exit; counts are best effort.
    with contextlib.suppress(Exception):
        usage_flush()


atexit.register(_flush_at_exit)
