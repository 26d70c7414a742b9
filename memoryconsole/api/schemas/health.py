"""Request and response shapes of the health endpoints (`memoryconsole.api.routers.health`)."""

from datetime import datetime
from typing import Literal

from pydantic import Field

from memoryconsole.api.schemas import FACT_ID, FactOut, Out, StrictIn
from memstore.calls.health import BotHealth
from memstore.vocabulary import FindingKind

Kind = FindingKind


class FindingOut(Out):
    kind: Kind
    why: str
    fact: FactOut
    other: FactOut | None = Field(None, description="The other fact of a duplicate or conflict.")
    fixes: list[str] = Field(description="What POST /health/memory/fix accepts for it.")


class MemoryHealthOut(Out):
    facts: int = Field(description="Facts looked at: those this bot may change from this room.")
    counts: dict[str, int]
    findings: list[FindingOut]
    made_at: datetime | None = Field(
        None, description="When the report was made (a large store's comes from the worker)."
    )
    outdated: bool = Field(False, description="The memory changed since the report was made.")
    preparing: bool = Field(False, description="A new report is being made by the worker.")
    indexed: int = Field(0, description="Facts the index holds now for these scopes.")
    indexing: int = Field(
        0, description="Facts changed on disk still being indexed (not in any count here yet)."
    )
    words_only: int = Field(
        0, description="Indexed facts without a vector yet: recall finds them by words only."
    )
    note: str = Field("", description="The report's state and the backlog, in words.")

    @staticmethod
    def of(health: BotHealth) -> "MemoryHealthOut":
        report = health.report
        return MemoryHealthOut(
            facts=report.facts,
            counts=report.counts,
            made_at=health.finished_at,
            outdated=health.outdated,
            preparing=health.preparing,
            indexed=health.indexed,
            indexing=health.backlog.indexing,
            words_only=health.backlog.words_only,
            note=health.note,
            findings=[
                FindingOut(
                    kind=f.kind,  # type: ignore[arg-type]
                    why=f.why,
                    fact=FactOut.of(f.fact),
                    other=FactOut.of(f.other) if f.other else None,
                    fixes=list(f.fixes),
                )
                for f in report.findings
            ],
        )


class FixIn(StrictIn):
    action: Literal["archive", "merge", "erase"] = Field(
        description="archive: forget (restorable); merge: archive `id`, keep `keep` and link it "
        "(supersedes); erase: forget and blank the text in history (for secrets)."
    )
    id: str = Field(pattern=FACT_ID)
    keep: str | None = Field(None, pattern=FACT_ID, description="merge: the fact to keep.")


class FixOut(Out):
    changed: int = Field(description="Fact lines changed.")
