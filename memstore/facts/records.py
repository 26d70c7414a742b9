"""The read-side value object every selector and service returns: a fact as stored.

`StoredFact` is built here and nowhere else: from an index row (`stored_from_row`), from the
columns of a raw query (`stored_from_values`, in `STORED_COLUMNS` order), or from a fact line a
service just wrote (`stored_of_line`).
"""

import json
from dataclasses import dataclass, field
from datetime import date

from memstore.facts.markdown import MAX_TEXT_CHARS, FactLine
from memstore.facts.paths import Scope, Shard, locate
from memstore.facts.ranking import derived


@dataclass(frozen=True, slots=True)
class StoredFact:
    """A fact with where it lives: its scope, the shard's writing bot and the file.

    `position`: its line number in the file (ties in rank go to the later line); `existed`: a
    save found it already stored and wrote nothing."""

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
    position: int = 0
    existed: bool = False

    @property
    def body(self) -> str:
        """The text without its [note]/[episode] tag."""
        return FactLine(day=self.day, text=self.text).body

    @property
    def too_long(self) -> bool:
        """A hand-written line longer than a save may be (shown whole, flagged in the file view)."""
        return len(self.text) > MAX_TEXT_CHARS

    @property
    def room(self) -> str:
        """The room it was learned in, from its `src=room:<id>/msg:<id>` ("" if not recorded)."""
        source = self.meta.get("src", "")
        return source.removeprefix("room:").partition("/")[0] if source.startswith("room:") else ""

    @property
    def parsed_scope(self) -> Scope:
        """The scope holding it, from its `kind:name` key."""
        return Scope.parse(self.scope)

    @property
    def shard(self) -> Shard:
        """The shard holding it."""
        return self.parsed_scope.shard(self.shard_bot)

    @property
    def scope_kind(self) -> str:
        return self.parsed_scope.kind

    @property
    def scope_name(self) -> str:
        return self.parsed_scope.name


# The columns of a raw query `stored_from_values` reads, in order (`f`: the fact, `m`: its file).
STORED_COLUMNS = (
    "f.fact_id, f.day, f.text, f.tier, f.scope_key, f.shard_bot, m.path, f.rank, f.visibility,"
    " f.meta, f.position"
)
# The same columns for a query that loads a few facts by row id without joining their files:
# each path is looked up by the file's primary key (a join would hash the whole file table).
STORED_COLUMNS_BY_ROW = STORED_COLUMNS.replace(
    "m.path", "(SELECT m.path FROM memstore_memoryfile m WHERE m.id = f.file_id)"
)


def stored_from_values(values: tuple) -> StoredFact:
    """A StoredFact from one row of a raw query selecting `STORED_COLUMNS`."""
    fact_id, day, text, tier, scope, shard_bot, path, rank, visibility, meta, position = values
    return StoredFact(
        fact_id=fact_id,
        day=day,
        text=text,
        tier=tier,
        scope=scope,
        shard_bot=shard_bot,
        file=path or "",
        rank=rank,
        visibility=visibility,
        meta=meta if isinstance(meta, dict) else json.loads(meta or "{}"),
        position=position,
    )


def stored_from_row(row) -> StoredFact:
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
        # A row loaded with .only() may leave position out: never fetch it one row at a time.
        position=vars(row).get("position", 0),
    )


def stored_of_line(
    rel: str, fact: FactLine, *, position: int = 0, existed: bool = False
) -> StoredFact:
    """The StoredFact a service answers with for a line it wrote (or found) in file `rel`,
    at line number `position`."""
    location = locate(rel)
    assert location is not None, rel
    text, tier, _, rank, visibility = derived(location.tier_file, fact)
    return StoredFact(
        fact_id=fact.identity,
        day=fact.day,
        text=text,
        tier=tier,
        scope=str(location.shard.scope),
        shard_bot=location.shard.bot,
        file=rel,
        rank=rank,
        visibility=visibility,
        meta=fact.meta,
        position=position,
        existed=existed,
    )
