"""The feedback tool: what a bot says about a fact it used (registered by `tools`), calling the
memstore function the API's feedback operation calls."""

from typing import Annotated

from pydantic import Field

from memoryconsole.api.schemas.feedback import FEEDBACK_HELP, FeedbackIn, FeedbackOut
from memoryconsole.mcp.calls import (
    FactId,
    Kind,
    Person,
    Projects,
    RoomId,
    checked,
    room_context,
    run_call,
)
from memstore.calls.feedback import bot_feedback
from memstore.vocabulary import Feedback


async def feedback(
    id: FactId,
    verb: Annotated[Feedback, Field(description=FEEDBACK_HELP)],
    room_id: RoomId = None,
    room_kind: Kind = None,
    person: Person = None,
    projects: Projects = [],  # noqa: B006 - pydantic copies defaults
) -> FeedbackOut:
    """Say what a fact you used is worth: useful (still true), outdated, wrong or do-not-use
    (the last two take it out of prompts and recall at once and send it to a person's review).
    Every copy this room may read is marked."""
    body = checked(FeedbackIn, verb=verb)

    def call() -> FeedbackOut:
        ctx = room_context(room_id, room_kind, person, projects)
        return FeedbackOut.of(bot_feedback(ctx=ctx, fact_id=id, verb=body.verb, via="tool"))

    return await run_call(call)
