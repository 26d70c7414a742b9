"""Reading memory for a prompt: recall (search), the prompt's memory section, and what changed
in it since it was built."""

from django.http import HttpRequest
from ninja import Header, Query, Router

from memoryconsole.api.auth import context_of
from memoryconsole.api.errors import errors
from memoryconsole.api.schemas import (
    BlockOut,
    ChangesIn,
    ChangesOut,
    ContextHeaders,
    FactOut,
    PromptOut,
    RecallOut,
    RecallQuery,
)
from memstore.prompt import prompt_build, prompt_changes
from memstore.recall import recall_search

router = Router(tags=["recall"])


@router.get(
    "/recall",
    response={200: RecallOut, **errors(401, 403, 409, 422)},
    operation_id="recall",
    url_name="recall",
)
def recall(request: HttpRequest, room: Header[ContextHeaders], params: Query[RecallQuery]):
    """Search what this room may read (own memory, the person's in direct rooms, the projects in
    play, this group room's legacy memory) by words and, with an embedding model, by meaning."""
    result = recall_search(ctx=context_of(request, room), query=params.query, limit=params.limit)
    return RecallOut(
        items=[FactOut.of(f) for f in result.items],
        more=result.more,
        mode=result.mode,
        note=result.note,
    )


@router.get(
    "/prompt",
    response={200: PromptOut, **errors(401, 403, 409, 422)},
    operation_id="prompt_section",
    url_name="prompt_section",
)
def prompt_section(request: HttpRequest, room: Header[ContextHeaders]):
    """The memory section of this bot's prompt for this room: the person's memory (direct rooms),
    up to 3 projects, then its own memory, each block within its budget."""
    section = prompt_build(ctx=context_of(request, room))
    return PromptOut(
        text=section.text,
        blocks=[
            BlockOut(
                title=b.title,
                scope=str(b.scope),
                facts=[FactOut.of(f) for f in b.facts],
                left_out=b.left_out,
            )
            for b in section.blocks
        ],
    )


@router.post(
    "/prompt/changes",
    response={200: ChangesOut, **errors(400, 401, 403, 409, 413, 422)},
    operation_id="prompt_changes",
    url_name="prompt_changes",
)
def changes_since(request: HttpRequest, room: Header[ContextHeaders], body: ChangesIn):
    """What was added (+) and removed (−) since a section you built earlier: cheaper for the
    model than a rebuilt section mid-conversation."""
    changes = prompt_changes(ctx=context_of(request, room), previous=body.previous)
    return ChangesOut(added=changes.added, removed=changes.removed, text=changes.text)
