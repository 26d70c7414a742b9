"""A fact's versions: the texts it had before each edit, read from its shard's
history (`memstore.facts.history`), newest first. An edit keeps the old line in history as the same
fact's previous version, so nothing here writes; restoring a version is an ordinary edit back
to that text (see `memstore.console.versions`), which in turn keeps the text it replaces.

Follows the chain of edits in one file backwards from the fact's current identity (an edit
changes the identity with the text) and stops where the fact was added.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from memstore.facts.history import Change
from memstore.facts.markdown import parse_line


@dataclass(frozen=True, slots=True)
class FactVersion:
    """One earlier text of a fact: what it said until `at`, when `by` changed it via `via`."""

    text: str
    line: str
    at: str  # ISO 8601 UTC of the edit that replaced it: the version's id
    by: str
    via: str


def fact_versions(changes: Iterable[Change], *, file: str, fact_id: str) -> list[FactVersion]:
    """The earlier texts of the fact now known as `fact_id` in `file`, newest first."""
    current = fact_id
    versions: list[FactVersion] = []
    for change in sorted(changes, key=lambda c: c.at, reverse=True):
        if change.file != file or change.fact_id != current:
            continue
        if change.op == "edit":
            old = parse_line(change.old_line)
            if old is not None:
                versions.append(
                    FactVersion(
                        text=old.text,
                        line=change.old_line,
                        at=change.at,
                        by=change.by,
                        via=change.via,
                    )
                )
            current = change.old_fact_id or current
        elif change.op == "add":
            break
    return versions
