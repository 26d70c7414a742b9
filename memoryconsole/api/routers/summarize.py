"""Summarize: the learning model pulls the facts worth keeping out of a long text, and they are
saved (write mode) or proposed (report mode), by the learner's own parser and rules."""

from django.http import HttpRequest
from ninja import Header, Router

from memoryconsole.api.auth import context_of
from memoryconsole.api.errors import errors
from memoryconsole.api.schemas import (
    ContextHeaders,
)
from memoryconsole.api.schemas.summarize import SummarizeIn, SummarizeOut
from memstore.calls.exchanges import text_summarize

router = Router(tags=["learning"])


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
