"""The shape every place that can hold a fact's text has (`Store`), and what an erase carries
through them (`Erasing`). The places themselves are `memstore.privacy.stores.STORES`."""

from dataclasses import dataclass, field
from typing import Protocol

from memstore.errors import UnreadableFile
from memstore.facts.history import Change
from memstore.privacy.derived import Derived
from memstore.privacy.reach import Reach
from memstore.privacy.target import Occurrence, Target


@dataclass(slots=True)
class Erasing:
    """One erase under way: the fact as the caller named it (by id or by text), who and how,
    the tombstone it leaves in history, the copies made from it (`memstore.privacy.derived`,
    wherever they are), the lines the memory files gave up and a file it could not read
    (raised once the rest is clean)."""

    fact_id: str | None
    text: str | None
    by: str
    via: str
    mark: str
    derived: list[Derived] = field(default_factory=list)
    removed: list[Change] = field(default_factory=list)
    stuck: UnreadableFile | None = None


class Store(Protocol):
    """A place that can hold a fact's text: `find` lists the copies within a reach, `erase`
    removes or redacts them and says how many. `holds` names what it covers: the model
    columns ("Model.field") or the files (a description) it owns."""

    kind: str
    holds: tuple[str, ...]

    def find(self, target: Target, reach: Reach) -> list[Occurrence]: ...

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int: ...
