"""Long lists of query parameters written as one Postgres array literal.

Owns `array_literal`: the text `{...}` Postgres reads back as exactly these values, for a list
a recall statement compares with `= ANY(%s)` (every fused candidate's identity, a few hundred).
psycopg adapts a Python list element by element (about half a millisecond for 150 identities,
measured with `bench auth --profile`); one joined string is a few microseconds. The string is
sent as an untyped literal, so Postgres gives it the array type the comparison needs (text[],
bigint[]), in client-side and server-side binding alike.

Does not: run a statement or know what the values mean.
"""

from collections.abc import Iterable

_PLAIN = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_:.-")


def array_literal(values: Iterable[str | int]) -> str:
    """`{a,b,...}`: each string element double-quoted (backslashes and quotes escaped) unless it
    holds only letters, digits and `_:.-`; integers written as they are."""
    return "{" + ",".join(_element(v) for v in values) + "}"


def _element(value: str | int) -> str:
    if isinstance(value, int):
        return str(value)
    if value and _PLAIN.issuperset(value) and value.upper() != "NULL":
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
