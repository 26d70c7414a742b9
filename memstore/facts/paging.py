"""The one page type of every paged list in memstore (facts, a shard's history, learning
activity): the items of one page and how to go on.

Offset pages count what matched (`total`); keyset pages (history, read backwards from a byte
offset) do not count and say where the next older page starts (`before`). It holds data only:
no queries, no I/O.
"""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Page[T]:
    """One page of a list, newest first."""

    items: list[T]
    total: int | None = None  # how many matched in all; None for keyset pages (not counted)
    offset: int = 0
    limit: int = 0
    before: int | None = None  # keyset pages: where the next older page starts; None at the end

    @property
    def has_more(self) -> bool:
        """Whether a further page exists."""
        if self.total is None:
            return self.before is not None
        return self.offset + len(self.items) < self.total
