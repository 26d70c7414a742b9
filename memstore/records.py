"""The read-side value object every selector and service returns: a fact as stored."""

from dataclasses import dataclass, field
from datetime import date

from memstore.markdown import FactLine


@dataclass(frozen=True, slots=True)
class StoredFact:
    """A fact with where it lives: its scope, the shard's writing bot and the file."""

    fact_id: str
    day: date
    text: str
    tier: str
    scope: str  # "kind:name"
    shard_bot: str
    file: str  # relative to MEMORY_ROOT
    rank: float = 0.0
    visibility: str = "context"
    meta: dict[str, str] = field(default_factory=dict)

    @property
    def body(self) -> str:
        """The text without its [note]/[episode] tag."""
        return FactLine(day=self.day, text=self.text).body

    @property
    def scope_kind(self) -> str:
        return self.scope.partition(":")[0]

    @property
    def scope_name(self) -> str:
        return self.scope.partition(":")[2]


def stored_from_row(row) -> "StoredFact":
    """A StoredFact from an index `Fact` row (its `file` must be loaded or its path annotated)."""
    path = getattr(row, "file_path", None) or row.file.path
    return StoredFact(
        fact_id=row.fact_id,
        day=row.day,
        text=row.text,
        tier=row.tier,
        scope=row.scope_key,
        shard_bot=row.shard_bot,
        file=path,
        rank=row.rank,
        visibility=row.visibility,
        meta=row.meta,
    )
