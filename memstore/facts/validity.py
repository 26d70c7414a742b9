"""When a fact stops being true and when a person should look at it again: the `until=` and
`review=` metadata of a line.

Owns: reading the two dates from a fact's metadata, and the one rule for each — a fact is
*expired* the day after its `until` (on that day it is still true) and *due for review* from
its `review` day on. The rule is a comparison of the written YYYY-MM-DD with today's, so the
same rule runs here over a `StoredFact` and in SQL over an index row (`expired_sql`): a value
not written YYYY-MM-DD (a hand edit) never expires a fact. Validation of dates being saved is
the grammar's (`markdown.clean_meta`).

Does not: know today's date (callers pass it), or filter anything itself.
"""

import re
from collections.abc import Mapping
from datetime import date

UNTIL = "until"
REVIEW = "review"
_DAY_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _written(meta: Mapping[str, str] | None, key: str) -> str | None:
    value = (meta or {}).get(key)
    return value if value and _DAY_RE.fullmatch(value) else None


def until_of(meta: Mapping[str, str] | None) -> str | None:
    """The fact's `until` as written (YYYY-MM-DD), or None when it has none or it is unreadable."""
    return _written(meta, UNTIL)


def review_of(meta: Mapping[str, str] | None) -> str | None:
    """The fact's `review` as written (YYYY-MM-DD), or None."""
    return _written(meta, REVIEW)


def is_expired(meta: Mapping[str, str] | None, today: date) -> bool:
    """The fact's `until` day has passed: it leaves prompts and recall (kept in its file)."""
    until = until_of(meta)
    return until is not None and until < today.isoformat()


def is_review_due(meta: Mapping[str, str] | None, today: date) -> bool:
    """The fact's `review` day has come: Health lists it for a person to check."""
    review = review_of(meta)
    return review is not None and review <= today.isoformat()


def expired_sql(alias: str = "f") -> str:
    """A SQL condition true for an expired fact row (`alias`: the fact table's); it takes one
    parameter, today's date as YYYY-MM-DD."""
    return _compared(alias, UNTIL, "<")


def review_due_sql(alias: str = "f") -> str:
    """A SQL condition true for a fact row due for review; one parameter, today's date."""
    return _compared(alias, REVIEW, "<=")


def _compared(alias: str, key: str, op: str) -> str:
    value = f"({alias}.meta ->> '{key}')"
    # A row without the key gives NULL, not false: `NOT expired` would then drop every fact
    # without an `until` (the change list called facts only pushed out of a budget removed).
    return f"coalesce({value} ~ '^[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}$' AND {value} {op} %s, false)"
