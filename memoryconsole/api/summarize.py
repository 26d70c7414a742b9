"""Summarize: the learning model pulls the facts worth keeping out of a long text, and they are
saved (write mode) or proposed (report mode), by the learner's own parser and rules."""

from typing import Literal

from django.http import HttpRequest
from ninja import Field, Header, Router
from pydantic import model_validator

from memoryconsole.api.auth import context_of
from memoryconsole.api.errors import errors
from memoryconsole.api.schemas import (
    SLUG,
    ContextHeaders,
    FactOut,
    Out,
    StrictIn,
    Text,
    check_project,
)
from memstore.learning.summarize import MAX_TEXT_CHARS, Summary, text_summarize
from memstore.vocabulary import WritableScopeKind

router = Router(tags=["learning"])


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


@router.post(
    "/facts/summarize",
    response={200: SummarizeOut, **errors(400, 401, 403, 409, 413, 422, 502)},
    operation_id="summarize",
    url_name="summarize",
)
def summarize(request: HttpRequest, room: Header[ContextHeaders], body: SummarizeIn):
    """Pull the facts worth keeping out of a long text with the learning model: saved in write
    mode, proposed in report mode; the answer lists what was refused and why (a secret, an
    excluded topic, already known…). 409 learning_unavailable when learning is off or today's
    budget is spent; 502 model_failed when the model's endpoint fails."""
    summary = text_summarize(
        ctx=context_of(request, room), text=body.text, scope=body.scope, project=body.project
    )
    return SummarizeOut.of(summary)
