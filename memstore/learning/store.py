"""Storing a learning run's progress in one statement: the exchange's new fields, its events
and the day's token charge, all or nothing.

Workers do this two or three times per exchange, so it is one round trip (data-modifying CTEs
run exactly once, in the statement's single transaction) instead of a transaction of four or
five. The ORM is used everywhere else; these are the learner's own tables.
"""

import json
from datetime import date

from django.db import connection

from memstore.models import Exchange, LearningEvent, TokenUsage

_EVENT_FIELDS = (
    "exchange_id", "key", "bot", "room_id", "room_kind", "person", "kind", "reason", "mode",
    "scope", "tier", "fact_id", "text", "detail",
)  # fmt: skip
_EXCHANGE_FIELDS = {"plan", "episode", "status", "reason", "finished_at"}


def progress_store(
    *,
    exchange_id: int,
    fields: dict[str, object],
    events: list[LearningEvent],
    tokens: int = 0,
    day: date | None = None,
) -> None:
    """Update the exchange (`fields`, plus `tokens` added), insert its events (a key already
    recorded is kept as it was) and add `tokens` to `day`'s budget, in one statement."""
    unknown = set(fields) - _EXCHANGE_FIELDS
    if unknown:
        raise ValueError(f"Not an exchange progress field: {', '.join(sorted(unknown))}")
    ctes, params = [], []
    if tokens:
        usage = TokenUsage._meta.db_table
        ctes.append(
            f"charge AS (INSERT INTO {usage} (day, tokens, calls) VALUES (%s, %s, 1) "
            f"ON CONFLICT (day) DO UPDATE SET tokens = {usage}.tokens + EXCLUDED.tokens, "
            f"calls = {usage}.calls + 1 RETURNING 1)"
        )
        params += [day, tokens]
    if events:
        row = "(" + ", ".join(["%s"] * len(_EVENT_FIELDS)) + ", now())"
        ctes.append(
            f"events AS (INSERT INTO {LearningEvent._meta.db_table} "
            f"({', '.join(_EVENT_FIELDS)}, at) VALUES {', '.join([row] * len(events))} "
            "ON CONFLICT (exchange_id, key) DO NOTHING RETURNING 1)"
        )
        for event in events:
            params += [getattr(event, name) for name in _EVENT_FIELDS]
    sets = ["tokens = tokens + %s"]
    values: list[object] = [tokens]
    for name, value in fields.items():
        sets.append(f"{name} = %s")
        values.append(json.dumps(value) if name == "plan" else value)
    sql = (f"WITH {', '.join(ctes)} " if ctes else "") + (
        f"UPDATE {Exchange._meta.db_table} SET {', '.join(sets)} WHERE id = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *values, exchange_id])
