"""Request and response shapes of the summarize endpoints (`memoryconsole.api.routers.summarize`)."""

from typing import Literal

from ninja import Field
from pydantic import model_validator

from memoryconsole.api.schemas import (
    SLUG,
    FactOut,
    Out,
    StrictIn,
    Text,
    check_project,
)
from memstore.calls.exchanges import MAX_TEXT_CHARS, Summary
from memstore.vocabulary import WritableScopeKind


class SummarizeIn(StrictIn):
    """A long text to pull facts from, and optionally where they go."""

    text: Text = Field(min_length=1, max_length=MAX_TEXT_CHARS, description="At most 20,000 chars.")
    scope: WritableScopeKind | None = Field(
        None,
        description="Where facts go; unset: the person's memory in a direct room, else the "
        "bot's own (as the learner routes them).",
    )
    project: str | None = Field(None, pattern=SLUG)

    @model_validator(mode="after")
    def _project_named(self) -> "SummarizeIn":
        check_project(self.scope, self.project)
        return self


class ProposedOut(Out):
    id: str
    text: str
    tier: str


class RefusedOut(Out):
    text: str
    tier: str
    reason: str = Field(description="secret, topic, known, invalid, limit, or an error code.")
    detail: str


class SummarizeOut(Out):
    mode: Literal["report", "write"] = Field(description="write saves; report only proposes.")
    scope: str = Field(description="The scope the facts went (or would go) to.")
    saved: list[FactOut]
    proposed: list[ProposedOut]
    refused: list[RefusedOut]

    @staticmethod
    def of(summary: Summary) -> "SummarizeOut":
        return SummarizeOut(
            mode=summary.mode,  # type: ignore[arg-type]
            scope=summary.scope,
            saved=[FactOut.of(f) for f in summary.saved],
            proposed=[
                ProposedOut(id=p.fact_id, text=p.text, tier=p.tier) for p in summary.proposed
            ],
            refused=[
                RefusedOut(text=r.text, tier=r.tier, reason=r.reason, detail=r.detail)
                for r in summary.refused
            ],
        )
