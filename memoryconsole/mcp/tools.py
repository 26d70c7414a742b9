"""The MCP tools: remember, recall, forget, list_facts, edit_fact, prompt_section,
report_exchange and summarize, each with the room it is called from as arguments.

Every tool validates its arguments with the API's own request schemas, builds the call's
Context with `memstore.actions.call_context` and calls the one memstore function the matching
JSON API handler calls, so the server-side rules (who may read and write what, secrets, excluded
topics, limits) are the same code. Answers are the API's response shapes. A refused call is an
MCP tool error (`isError`) whose text starts with the API's stable error code; it never carries
memory.

Who is calling is `CALLER`, set by the front door: the bot and its joined projects from the
bearer token over HTTP; `--bot` on stdio, whose projects are read at each call (None).
"""

import json
from collections.abc import Callable
from contextvars import ContextVar
from typing import Annotated, Any

from asgiref.sync import sync_to_async
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field, ValidationError

from memoryconsole.api.schemas import (
    BlockOut,
    EditIn,
    ExchangeIn,
    ExchangeOut,
    FactOut,
    FactPageOut,
    ForgetIn,
    ForgetOut,
    ListFilters,
    PromptOut,
    RecallOut,
    RecallQuery,
    RememberIn,
    RemovedOut,
)
from memoryconsole.api.summarize import SummarizeIn, SummarizeOut
from memstore.access import Context
from memstore.actions import bot_edit, bot_facts_list, bot_forget, bot_remember, call_context
from memstore.errors import MemstoreError
from memstore.learning import exchange_submit
from memstore.learning.summarize import text_summarize
from memstore.prompt import prompt_build
from memstore.recall import recall_search
from memstore.vocabulary import (
    FACT_ID_PATTERN,
    PERSON_PATTERN,
    ROOM_PATTERN,
    SLUG_PATTERN,
    FactType,
    RoomKind,
    ScopeKind,
    Tier,
    Visibility,
    WritableScopeKind,
    anchored,
)

CALLER: ContextVar[tuple[str, frozenset[str] | None]] = ContextVar("mcp_caller")

INSTRUCTIONS = """\
Long-term memory for this bot. Every tool takes the room you are talking in: room_id,
room_kind (direct, group, routine, bot, event), person (direct rooms) and projects (up to 3).
The server decides what that room may read and write: a person's memory only in their direct
rooms, project memory only for projects the bot joined. Call prompt_section at the start of a
conversation, recall to search, remember to save one fact, report_exchange after each reply."""

RoomId = Annotated[str, Field(pattern=anchored(ROOM_PATTERN), description="The conversation's id.")]
Kind = Annotated[
    RoomKind,
    Field(description="direct (one person, one bot), group, routine, bot (bot-to-bot) or event."),
]
Person = Annotated[
    str | None,
    Field(
        pattern=anchored(PERSON_PATTERN),
        description="The person's username: required in direct rooms, ignored elsewhere.",
    ),
]
Projects = Annotated[
    list[Annotated[str, Field(pattern=anchored(SLUG_PATTERN))]],
    Field(
        max_length=3, description="Up to 3 project slugs in play; the bot must have joined them."
    ),
]
Project = Annotated[
    str | None,
    Field(pattern=anchored(SLUG_PATTERN), description="The project, with scope=project."),
]
FactId = Annotated[str, Field(pattern=anchored(FACT_ID_PATTERN), description="16 hex digits.")]

READ = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)
ADD = ToolAnnotations(
    readOnlyHint=False, destructiveHint=False, idempotentHint=True, openWorldHint=False
)
CHANGE = ToolAnnotations(
    readOnlyHint=False, destructiveHint=True, idempotentHint=False, openWorldHint=False
)
REMOVE = ToolAnnotations(
    readOnlyHint=False, destructiveHint=True, idempotentHint=True, openWorldHint=False
)

server: MCPServer = MCPServer("memory-console", instructions=INSTRUCTIONS)


def _checked[T](schema: type[T], **fields: Any) -> T:
    """Validate arguments with the API's request schema (the same limits and cross-field rules)."""
    try:
        return schema.model_validate({k: v for k, v in fields.items() if v is not None})  # type: ignore[attr-defined]
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
            for e in exc.errors()[:3]
        )
        raise ToolError(f"invalid_request: {problems}") from None


def _context(room_id: str, room_kind: str, person: str | None, projects: list[str]) -> Context:
    bot, joined = CALLER.get()
    return call_context(
        bot=bot,
        room_id=room_id,
        room_kind=room_kind,
        person=person,
        projects=projects,
        joined=joined,
    )


async def _run[T](call: Callable[[], T]) -> T:
    """Run a memstore call on the request's thread (Django's database connection lives there),
    turning domain errors into MCP tool errors that start with the API's error code."""
    try:
        return await sync_to_async(call, thread_sensitive=True)()
    except MemstoreError as exc:
        detail = f" {json.dumps(exc.detail, default=str)}" if exc.detail else ""
        raise ToolError(f"{exc.code}: {exc.message}{detail}") from None


@server.tool(annotations=ADD)
async def remember(
    room_id: RoomId,
    room_kind: Kind,
    text: Annotated[str, Field(description="One fact, at most 500 characters.")],
    scope: WritableScopeKind = "bot",
    project: Project = None,
    tier: Annotated[Tier, Field(description="profile (lasting), log, note, episode.")] = "log",
    type: FactType | None = None,
    importance: Annotated[float | None, Field(ge=0, le=1)] = None,
    visibility: Visibility | None = None,
    person: Person = None,
    projects: Projects = [],  # noqa: B006 - pydantic copies defaults
) -> FactOut:
    """Save a fact in the bot's own memory (default), the person's memory (direct rooms only)
    or a joined project's memory. Saving the same text again keeps one line."""
    body = _checked(
        RememberIn,
        text=text,
        scope=scope,
        project=project,
        tier=tier,
        type=type,
        importance=importance,
        visibility=visibility,
    )

    def call() -> FactOut:
        ctx = _context(room_id, room_kind, person, projects)
        fact = bot_remember(
            ctx=ctx,
            text=body.text,
            scope=body.scope,
            project=body.project,
            tier=body.tier,
            meta=body.meta(),
            via="tool",
        )
        return FactOut.of(fact)

    return await _run(call)


@server.tool(annotations=READ)
async def recall(
    room_id: RoomId,
    room_kind: Kind,
    query: Annotated[str, Field(description="Words or a question.")],
    limit: Annotated[int, Field(ge=1, le=50)] = 20,
    person: Person = None,
    projects: Projects = [],  # noqa: B006
) -> RecallOut:
    """Search what this room may read (own memory, the person's in direct rooms, the projects
    in play, this group room's legacy memory) by words and, with an embedding model, meaning."""
    params = _checked(RecallQuery, query=query, limit=limit)

    def call() -> RecallOut:
        ctx = _context(room_id, room_kind, person, projects)
        result = recall_search(ctx=ctx, query=params.query, limit=params.limit)
        return RecallOut(
            items=[FactOut.of(f) for f in result.items],
            more=result.more,
            mode=result.mode,
            note=result.note,
        )

    return await _run(call)


@server.tool(annotations=REMOVE)
async def forget(
    room_id: RoomId,
    room_kind: Kind,
    id: FactId | None = None,
    text: Annotated[str | None, Field(description="The fact's text (any case).")] = None,
    scope: ScopeKind | None = None,
    project: Project = None,
    person: Person = None,
    projects: Projects = [],  # noqa: B006
) -> ForgetOut:
    """Forget a fact by id or by text from every shard this bot may change here (or one
    scope). Refused with not_found if none held it."""
    body = _checked(ForgetIn, id=id, text=text, scope=scope, project=project)

    def call() -> ForgetOut:
        ctx = _context(room_id, room_kind, person, projects)
        changes = bot_forget(
            ctx=ctx,
            fact_id=body.id,
            text=body.text,
            scope=body.scope,
            project=body.project,
            via="tool",
        )
        return ForgetOut(
            forgotten=len(changes),
            removed=[RemovedOut(id=c.fact_id, file=c.file, line=c.line) for c in changes],
        )

    return await _run(call)


@server.tool(annotations=READ)
async def list_facts(
    room_id: RoomId,
    room_kind: Kind,
    scope: ScopeKind | None = None,
    project: Project = None,
    tier: Tier | None = None,
    month: Annotated[str | None, Field(description="YYYY-MM")] = None,
    contains: Annotated[str | None, Field(description="Text contains this.")] = None,
    offset: Annotated[int, Field(ge=0)] = 0,
    limit: Annotated[int, Field(ge=1, le=200)] = 50,
    person: Person = None,
    projects: Projects = [],  # noqa: B006
) -> FactPageOut:
    """Facts this room may read, newest first (hidden facts are not listed)."""
    filters = _checked(
        ListFilters,
        scope=scope,
        project=project,
        tier=tier,
        month=month,
        q=contains,
        offset=offset,
        limit=limit,
    )

    def call() -> FactPageOut:
        page = bot_facts_list(
            ctx=_context(room_id, room_kind, person, projects),
            scope=filters.scope,
            project=filters.project,
            tier=filters.tier,
            month=filters.month,
            contains=filters.q,
            offset=filters.offset,
            limit=filters.limit,
        )
        return FactPageOut(
            items=[FactOut.of(f) for f in page.items],
            total=page.total,
            offset=page.offset,
            limit=page.limit,
            has_more=page.has_more,
        )

    return await _run(call)


@server.tool(annotations=CHANGE)
async def edit_fact(
    room_id: RoomId,
    room_kind: Kind,
    id: FactId,
    text: Annotated[str, Field(description="The new text, at most 500 characters.")],
    expected_text: Annotated[
        str | None, Field(description="Refuse (conflict) if the fact no longer reads so.")
    ] = None,
    scope: WritableScopeKind | None = None,
    project: Project = None,
    person: Person = None,
    projects: Projects = [],  # noqa: B006
) -> FactOut:
    """Replace a fact's text in place (same file, line and date; its id changes with its text)."""
    body = _checked(EditIn, text=text, expected_text=expected_text, scope=scope, project=project)

    def call() -> FactOut:
        fact = bot_edit(
            ctx=_context(room_id, room_kind, person, projects),
            fact_id=id,
            text=body.text,
            expected_text=body.expected_text,
            scope=body.scope,
            project=body.project,
            via="tool",
        )
        return FactOut.of(fact)

    return await _run(call)


@server.tool(annotations=READ)
async def prompt_section(
    room_id: RoomId,
    room_kind: Kind,
    person: Person = None,
    projects: Projects = [],  # noqa: B006
) -> PromptOut:
    """The memory section of this bot's prompt for this room: the person's memory (direct
    rooms), up to 3 projects, then its own memory, each block within its budget."""

    def call() -> PromptOut:
        section = prompt_build(ctx=_context(room_id, room_kind, person, projects))
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

    return await _run(call)


@server.tool(annotations=ADD)
async def report_exchange(
    room_id: RoomId,
    room_kind: Kind,
    message: Annotated[str, Field(description="What the person said.")],
    reply: Annotated[str, Field(description="What the bot answered.")],
    message_id: Annotated[str, Field(description="The message's id in your system.")],
    reply_id: Annotated[str, Field(description="The reply's id in your system.")],
    recalled: Annotated[
        list[str], Field(description="Ids or texts of facts recalled for this reply.")
    ] = [],  # noqa: B006
    person: Person = None,
    projects: Projects = [],  # noqa: B006
) -> ExchangeOut:
    """Report a message and the reply delivered, for learning in the background (direct and
    group rooms; small talk is skipped). Reporting the same ids again returns the first receipt."""
    body = _checked(
        ExchangeIn,
        message=message,
        reply=reply,
        message_id=message_id,
        reply_id=reply_id,
        recalled=recalled,
    )

    def call() -> ExchangeOut:
        receipt = exchange_submit(
            ctx=_context(room_id, room_kind, person, projects),
            message=body.message,
            reply=body.reply,
            message_id=body.message_id,
            reply_id=body.reply_id,
            recalled=body.recalled,
        )
        return ExchangeOut(id=str(receipt.id), status=receipt.status, reason=receipt.reason)

    return await _run(call)


@server.tool(annotations=ADD)
async def summarize(
    room_id: RoomId,
    room_kind: Kind,
    text: Annotated[str, Field(description="A long text: a document, notes, a chat log.")],
    scope: WritableScopeKind | None = None,
    project: Project = None,
    person: Person = None,
    projects: Projects = [],  # noqa: B006
) -> SummarizeOut:
    """Pull the facts worth keeping out of a long text (at most 20,000 characters) with the
    learning model: saved in write mode, proposed in report mode, with what was refused and why."""
    body = _checked(SummarizeIn, text=text, scope=scope, project=project)

    def call() -> SummarizeOut:
        summary = text_summarize(
            ctx=_context(room_id, room_kind, person, projects),
            text=body.text,
            scope=body.scope,
            project=body.project,
        )
        return SummarizeOut.of(summary)

    return await _run(call)
