"""When a fact stops being true, when a person should look at it again, and what was said about
it: the `until=`, `review=`, `checked=` and `mark=` metadata of a line.

Owns: reading them from a fact's metadata, and the one rule for each — a fact is *expired* the
day after its `until` (on that day it is still true) or from the moment it is marked `wrong` or
`do-not-use` (it leaves prompts and recall at once, kept in its file), *due for review* from
its `review` day on, and *verified* on its `checked` day; and what each feedback verb writes
(`feedback_meta`): `useful` sets `checked` (and clears an `outdated` mark), the other verbs set
`mark` and `review` (today: Health lists it for a person at once); a person's confirmation sets
`checked` and clears both. The rule is a comparison of the written YYYY-MM-DD with today's, so the
same rule runs here over a `StoredFact` and in SQL over an index row (`expired_sql`): a value
not written YYYY-MM-DD (a hand edit) never expires a fact. Validation of dates being saved is
the grammar's (`markdown.clean_meta`).

Does not: know today's date (callers pass it), or filter anything itself.
"""

import re
from collections.abc import Mapping
from datetime import date

from memstore.vocabulary import MARKS, WITHDRAWN_MARKS

UNTIL = "until"
REVIEW = "review"
CHECKED = "checked"
MARK = "mark"
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


def checked_of(meta: Mapping[str, str] | None) -> str | None:
    """The day the fact was last confirmed (YYYY-MM-DD), or None: never verified."""
    return _written(meta, CHECKED)


def mark_of(meta: Mapping[str, str] | None) -> str | None:
    """The feedback mark on the fact (outdated, wrong, do-not-use), or None."""
    value = (meta or {}).get(MARK)
    return value if value in MARKS else None


def is_withdrawn(meta: Mapping[str, str] | None) -> bool:
    """Marked wrong or do-not-use: out of prompts and recall until a person confirms it."""
    return mark_of(meta) in WITHDRAWN_MARKS


def is_expired(meta: Mapping[str, str] | None, today: date) -> bool:
    """The fact's `until` day has passed, or it is marked wrong or do-not-use: it leaves
    prompts and recall (kept in its file, listed as expired)."""
    until = until_of(meta)
    return (until is not None and until < today.isoformat()) or is_withdrawn(meta)


def feedback_meta(verb: str, meta: Mapping[str, str] | None, today: date) -> dict[str, str | None]:
    """The metadata a feedback verb (or `confirm`, a person's) writes on a fact: keys to set,
    or None to drop. `useful` never lifts a wrong or do-not-use mark: only a person does."""
    day = today.isoformat()
    if verb == "confirm":
        return {CHECKED: day, MARK: None, REVIEW: None}
    if verb == "useful":
        if is_withdrawn(meta):
            return {}
        return {CHECKED: day} | ({MARK: None} if mark_of(meta) == "outdated" else {})
    if verb not in MARKS:
        raise ValueError(f"unknown feedback {verb!r}")
    return {MARK: verb, REVIEW: day}


def is_review_due(meta: Mapping[str, str] | None, today: date) -> bool:
    """The fact's `review` day has come: Health lists it for a person to check."""
    review = review_of(meta)
    return review is not None and review <= today.isoformat()


def expired_sql(alias: str = "f") -> str:
    """A SQL condition true for an expired fact row (`alias`: the fact table's): past its
    `until`, or marked wrong or do-not-use; it takes one parameter, today's date as YYYY-MM-DD."""
    marks = ", ".join(f"'{mark}'" for mark in WITHDRAWN_MARKS)
    withdrawn = f"coalesce(({alias}.meta ->> '{MARK}') IN ({marks}), false)"
    return f"({_compared(alias, UNTIL, '<')} OR {withdrawn})"


def may_expire_sql(alias: str = "f") -> str:
    """A SQL condition true for the few rows `expired_sql` can hold for (an `until` or a `mark`
    key): read through the partial indexes `fact_until` and `fact_mark`. No parameter."""
    return f"({alias}.meta ? '{UNTIL}' OR {alias}.meta ? '{MARK}')"


def review_due_sql(alias: str = "f") -> str:
    """A SQL condition true for a fact row due for review; one parameter, today's date."""
    return _compared(alias, REVIEW, "<=")


def _compared(alias: str, key: str, op: str) -> str:
    value = f"({alias}.meta ->> '{key}')"
    # A row without the key gives NULL, not false: `NOT expired` would then drop every fact
    # without an `until` (the change list called facts only pushed out of a budget removed).
    return f"coalesce({value} ~ '^[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}$' AND {value} {op} %s, false)"
