"""Fixed-window rate limits for the OAuth endpoints anyone may call (registration, token,
revocation), counted per client address in Postgres so every worker and host shares the count.

One statement a request: an upsert that counts this request in the address's current window and
answers the count. A window that just opened also drops the windows that have ended, so the
table holds at most one row per (endpoint, address) active in the last window.

Does not: decide the client's address (the front door does, trusting only configured proxies),
or the limits (settings.OAUTH_RATE_LIMITS).
"""

import time
from datetime import UTC, datetime

from django.db import connection

from memstore.models import OAuthRateWindow


def rate_hit(
    *, bucket: str, address: str, limit: int, window: int, now: float | None = None
) -> int:
    """Count one request from `address` to `bucket`: 0 if it is within `limit` requests per
    `window` seconds, else the seconds until the window ends (what Retry-After says)."""
    now = time.time() if now is None else now
    opened = int(now // window) * window
    ends = datetime.fromtimestamp(opened + window, tz=UTC)
    key = f"{bucket}|{address[:120]}|{opened}"
    with connection.cursor() as cursor:
        cursor.execute(_HIT_SQL, [key, ends])
        (count,) = cursor.fetchone()
        if count == 1:
            cursor.execute(_DROP_SQL, [datetime.fromtimestamp(now, tz=UTC)])
    if count <= limit:
        return 0
    return max(1, int(opened + window - now + 0.999))


_TABLE = OAuthRateWindow._meta.db_table
_HIT_SQL = f"""
    INSERT INTO {_TABLE} (key, count, window_end) VALUES (%s, 1, %s)
    ON CONFLICT (key) DO UPDATE SET count = {_TABLE}.count + 1
    RETURNING count
"""
_DROP_SQL = f"DELETE FROM {_TABLE} WHERE window_end < %s"
