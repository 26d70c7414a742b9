"""Reading memory for a prompt: recall (search), the prompt's memory section, and what changed
in it since it was built."""

from django.http import HttpRequest
from ninja import Header, Query, Router

from memoryconsole.api.auth import context_of
from memoryconsole.api.errors import errors
from memoryconsole.api.schemas import (
    ChangesIn,
    ChangesOut,
    ContextHeaders,
    PromptOut,
    PromptQuery,
    RecallOut,
    RecallQuery,
)
from memstore.calls.links import bot_neighbours
from memstore.calls.prompt import prompt_changes, prompt_or_unavailable
from memstore.calls.recall import recall_answer

router = Router(tags=["recall"])


@router.get(
    "/recall",
    response={200: RecallOut, **errors(401, 403, 409, 422)},
    operation_id="recall",
    url_name="recall",
)
def recall(request: HttpRequest, room: Header[ContextHeaders], params: Query[RecallQuery]):
    """Search what this room may read (own memory, the person's in direct rooms, the projects in
    play, this group room's legacy memory) by words and, with an embedding model, by meaning.
    Never waits past the time budget: `stale` or `memory: unavailable` say what it did instead.
    `rerank` overrides RECALL_RERANK for this call; `explain=true` says why each result came
    where it did, and where each `expect`ed fact fell."""
    ctx = context_of(request, room)
    timed = recall_answer(
        ctx=ctx,
        query=params.query,
        limit=params.limit,
        rerank=params.rerank,
        explain=params.explain,
        expect=params.expect,
    )
    found = [f.fact_id for f in timed.value.items]
    near = bot_neighbours(ctx=ctx, fact_ids=found) if params.neighbours and found else None
    return RecallOut.of(timed, near)


@router.get(
    "/prompt",
    response={200: PromptOut, **errors(401, 403, 409, 422)},
    operation_id="prompt_section",
    url_name="prompt_section",
)
def prompt_section(request: HttpRequest, room: Header[ContextHeaders], params: Query[PromptQuery]):
    """The memory section of this bot's prompt for this room: the always-on notes, then the
    person's memory (direct rooms), up to 3 projects, then its own memory, each block within its
    budget. Never waits past the time budget (`stale`, `memory`), and while the database is down
    answers without memory (`memory: unavailable`); with `as_of`, the section as it was at the
    end of that day."""
    answer = prompt_or_unavailable(
        open_context=lambda: context_of(request, room), as_of=params.as_of
    )
    return PromptOut.of(answer)


@router.post(
    "/prompt/changes",
    response={200: ChangesOut, **errors(400, 401, 403, 409, 413, 422)},
    operation_id="prompt_changes",
    url_name="prompt_changes",
)
def changes_since(request: HttpRequest, room: Header[ContextHeaders], body: ChangesIn):
    """What was added (+) and removed (−) since a section you built earlier, and what only left
    the section (~: still in memory, pushed out of its budget by others): cheaper for the model
    than a rebuilt section mid-conversation."""
    changes = prompt_changes(ctx=context_of(request, room), previous=body.previous)
    return ChangesOut(
        added=changes.added, removed=changes.removed, left=changes.left, text=changes.text
    )
