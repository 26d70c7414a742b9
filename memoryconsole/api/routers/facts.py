"""Facts: remember, list, edit and forget, from the room the call names."""

from django.http import HttpRequest, HttpResponse
from ninja import Header, Query, Router
from ninja.responses import Status

from memoryconsole.api.auth import context_of
from memoryconsole.api.errors import errors
from memoryconsole.api.schemas import (
    ContextHeaders,
    EditIn,
    FactId,
    FactOut,
    FactPageOut,
    ForgetIn,
    ForgetOut,
    ForgetWhere,
    ListFilters,
    RememberIn,
    RememberOut,
)
from memstore.calls.facts import (
    bot_edit,
    bot_facts_as_of,
    bot_facts_list,
    bot_forget_answer,
    bot_remember,
)
from memstore.calls.idempotency import idempotent_call

router = Router(tags=["facts"])

IDEMPOTENCY_KEY = Header(
    "",
    alias="Idempotency-Key",
    pattern=r"^[\x21-\x7e]{0,255}$",
    description="Retrying with the same key returns the first reply instead of saving twice "
    "(kept 24 h; the same key with a different request is refused with 422).",
)


@router.post(
    "/facts",
    response={200: RememberOut, 201: RememberOut, **errors(400, 401, 403, 409, 413, 422)},
    operation_id="remember",
    url_name="remember",
)
def remember(
    request: HttpRequest,
    response: HttpResponse,
    room: Header[ContextHeaders],
    body: RememberIn,
    idempotency_key: str = IDEMPOTENCY_KEY,
):
    """Save a fact in the bot's own memory (default), the person's memory (direct rooms only) or
    a joined project's memory. 201 with the fact saved; 200 with `existed: true` and the stored
    copy when the same fact is already in the target scope (nothing is written)."""
    ctx = context_of(request, room)

    def save() -> tuple[int, dict]:
        fact = bot_remember(
            ctx=ctx,
            text=body.text,
            scope=body.scope,
            project=body.project,
            tier=body.tier,
            meta=body.meta(),
        )
        saved = RememberOut.of_saved(fact)
        return 200 if saved.existed else 201, saved.model_dump(mode="json")

    if not idempotency_key:
        return Status(*save())
    reply = idempotent_call(
        bot=ctx.bot,
        key=idempotency_key,
        request={"room": room.model_dump(exclude={"ticket"}), "body": body.model_dump(mode="json")},
        call=save,
    )
    if reply.replayed:
        response["Idempotent-Replayed"] = "true"
    return Status(reply.status, reply.body)


@router.get(
    "/facts",
    response={200: FactPageOut, **errors(401, 403, 409, 422)},
    operation_id="list_facts",
    url_name="list_facts",
)
def list_facts(request: HttpRequest, room: Header[ContextHeaders], filters: Query[ListFilters]):
    """Facts this room may read, newest first: own memory, the person's (direct rooms), the
    projects in play, and the legacy memory of this group room. Hidden facts are not listed;
    facts past their `until` day are, marked `expired` (`expired=true|false` filters them).
    One row per fact in a scope: copies other shards hold are named in `also_in`. An unknown
    query parameter is refused (422), never ignored.
    With `as_of`, the facts held at the end of that day, replayed from history."""
    ctx = context_of(request, room)
    where = dict(
        scope=filters.scope,
        project=filters.project,
        tier=filters.tier,
        fact_type=filters.type,
        month=filters.month,
        contains=filters.q,
        offset=filters.offset,
        limit=filters.limit,
    )
    if filters.as_of is not None:
        page = bot_facts_as_of(ctx=ctx, day=filters.as_of, **where)
    else:
        page = bot_facts_list(ctx=ctx, expired=filters.expired, **where)
    return FactPageOut.of(page)


# Declared before /facts/{fact_id}: Django matches URL patterns in order.
@router.post(
    "/facts/forget",
    response={200: ForgetOut, **errors(400, 401, 403, 404, 409, 413, 422)},
    operation_id="forget",
    url_name="forget",
)
def forget(request: HttpRequest, room: Header[ContextHeaders], body: ForgetIn):
    """Forget a fact by id or by text from every shard this bot may change here (or one scope),
    listing the copies other bots' shards still hold; with erase=true, also tombstone its
    history, drop its cached embedding and redact it from this bot's stored records. 404 if
    nothing held it; 409 held_by_other_bots if only other bots' shards do."""
    answer = bot_forget_answer(
        ctx=context_of(request, room),
        fact_id=body.id,
        text=body.text,
        scope=body.scope,
        project=body.project,
        erase=body.erase,
    )
    return ForgetOut.of(answer)


@router.patch(
    "/facts/{fact_id}",
    response={200: FactOut, **errors(400, 401, 403, 404, 409, 413, 422)},
    operation_id="edit_fact",
    url_name="edit_fact",
)
def edit_fact(
    request: HttpRequest,
    room: Header[ContextHeaders],
    body: EditIn,
    fact_id: str = FactId,
):
    """Replace a fact's text in place (same file, line and date; its id changes with its text).
    With expected_text, a fact that changed meanwhile is not overwritten: 409 with the current
    text in detail.current."""
    fact = bot_edit(
        ctx=context_of(request, room),
        fact_id=fact_id,
        text=body.text,
        expected_text=body.expected_text,
        scope=body.scope,
        project=body.project,
        meta=body.meta(),
    )
    return FactOut.of(fact)


@router.delete(
    "/facts/{fact_id}",
    response={200: ForgetOut, **errors(401, 403, 404, 409, 422)},
    operation_id="forget_fact",
    url_name="forget_fact",
)
def forget_fact(
    request: HttpRequest,
    room: Header[ContextHeaders],
    where: Query[ForgetWhere],
    fact_id: str = FactId,
):
    """Forget a fact by id (the same as POST /facts/forget with an id)."""
    answer = bot_forget_answer(
        ctx=context_of(request, room), fact_id=fact_id, scope=where.scope, project=where.project
    )
    return ForgetOut.of(answer)
