"""Grants: what a bot's token may do (`memory:read`, `memory:write`, the scopes OAuth connections
carry too) and how a bot belongs to a project (`read` or `read_write`).

Owns the one rule and its wording: a call that writes needs `memory:write`, and a write into a
project's memory needs `read_write` membership; a refusal is `MissingGrant` (403
`missing_grant`) naming what is missing. Which calls write is each front door's table (the API's
methods, the MCP tools' scopes); which shard a write lands in is `memstore.rooms.access`, which
asks `membership_check` here.

Does not: store tokens (`memstore.registry.tokens`) or memberships (`memstore.registry.bots`).
"""

from collections.abc import Iterable

from memstore.errors import InvalidName, MissingGrant
from memstore.vocabulary import GRANTS, MEMBERSHIPS, READ_GRANT, WRITE_GRANT

ALL_GRANTS: frozenset[str] = frozenset(GRANTS)
READ_WRITE = "read_write"


def grants_clean(grants: Iterable[str] | str) -> tuple[str, ...]:
    """Grants given by a person (a list, or words split by commas or spaces), in the
    vocabulary's order; InvalidName naming an unknown one or saying none were given."""
    words = grants.replace(",", " ").split() if isinstance(grants, str) else list(grants)
    unknown = [word for word in words if word not in GRANTS]
    if unknown:
        raise InvalidName(
            f"Unknown grant {unknown[0]!r}: a token may have {' and '.join(GRANTS)}.",
            detail={"field": "scopes"},
        )
    if not words:
        raise InvalidName(
            f"Give a token at least one grant: {' or '.join(GRANTS)}.", detail={"field": "scopes"}
        )
    return tuple(grant for grant in GRANTS if grant in words)


def membership_clean(access: str) -> str:
    """A project membership as given (`read` or `read_write`); InvalidName otherwise."""
    if access not in MEMBERSHIPS:
        raise InvalidName(
            f"Project membership is {' or '.join(MEMBERSHIPS)}, not {access!r}.",
            detail={"field": "access"},
        )
    return access


def grant_require(*, granted: Iterable[str], needed: str = WRITE_GRANT, doing: str) -> None:
    """Raise MissingGrant unless `needed` is among `granted`; `doing` says what the call would
    have done ("save a fact"): "this token has memory:read only; memory:write is needed to …"."""
    granted = frozenset(granted)
    if needed in granted:
        return
    has = " and ".join(g for g in GRANTS if g in granted)
    has = f"{has} only" if has else "no grant"
    raise MissingGrant(
        f"This token has {has}; {needed} is needed to {doing}.",
        detail={"grant": needed, "granted": [g for g in GRANTS if g in granted]},
    )


def membership_check(*, bot: str, project: str, read_only: Iterable[str]) -> None:
    """Raise MissingGrant when the bot's membership of `project` is `read` (it may read the
    project's memory, not write it)."""
    if project in frozenset(read_only):
        raise MissingGrant(
            f"Bot {bot!r} has read access to project {project!r}; {READ_WRITE} membership is "
            f"needed to write its memory (manage.py bots join {bot} {project} --access "
            f"{READ_WRITE}).",
            detail={"grant": READ_WRITE, "project": project},
        )


__all__ = [
    "ALL_GRANTS",
    "READ_GRANT",
    "READ_WRITE",
    "WRITE_GRANT",
    "grant_require",
    "grants_clean",
    "membership_check",
    "membership_clean",
]
