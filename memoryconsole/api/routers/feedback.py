"""Feedback on a fact the room may read: useful, outdated, wrong, do-not-use."""

from django.http import HttpRequest
from ninja import Header, Router

from memoryconsole.api.auth import context_of
from memoryconsole.api.errors import errors
from memoryconsole.api.schemas import ContextHeaders, FactId
from memoryconsole.api.schemas.feedback import FeedbackIn, FeedbackOut
from memstore.calls.feedback import bot_feedback

router = Router(tags=["facts"])


@router.post(
    "/facts/{fact_id}/feedback",
    response={200: FeedbackOut, **errors(400, 401, 403, 404, 409, 413, 422)},
    operation_id="fact_feedback",
    url_name="fact_feedback",
)
def give_feedback(
    request: HttpRequest, room: Header[ContextHeaders], body: FeedbackIn, fact_id: str = FactId
):
    """Say what a fact you used is worth: `useful` (still true), `outdated`, `wrong` or
    `do-not-use` (the last two take it out of prompts and recall at once and send it to a
    person's review). Every copy this room may read is marked; a recall never marks anything."""
    given = bot_feedback(ctx=context_of(request, room), fact_id=fact_id, verb=body.verb)
    return FeedbackOut.of(given)
