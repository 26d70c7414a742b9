"""The MCP tools: remember, recall, forget, list_facts, edit_fact, prompt_section,
report_exchange, summarize, feedback (`memoryconsole.mcp.feedback`) and changes
(`memoryconsole.mcp.changes`), each with the room it is called from as arguments.

Every tool validates its arguments with the API's own request schemas, builds the call's
Context with `memstore.rooms.context.call_context` and calls the one memstore function the matching
JSON API handler calls, so the server-side rules (who may read and write what, secrets, excluded
topics, limits) are the same code. Answers are the API's response shapes. A refused call is an
MCP tool error (`isError`) whose text starts with the API's stable error code; it never carries
memory.
"""

from typing import Annotated

from pydantic import Field

from memoryconsole.api.schemas import (
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
    RememberOut,
)
from memoryconsole.api.schemas.facts import REVIEW_HELP, UNTIL_HELP
from memoryconsole.api.schemas.summarize import SummarizeIn, SummarizeOut
from memoryconsole.mcp.calls import (
    ADD,
    CALLER,
    CHANGE,
    READ,
    REMOVE,
    FactId,
    Kind,
    MemoryServer,
    Person,
    Project,
    Projects,
    RoomId,
    checked,
    room_context,
    run_call,
)
from memoryconsole.mcp.feedback import feedback
from memoryconsole.mcp.resources import resources_add
from memstore.calls.exchanges import exchange_submit, text_summarize
from memstore.calls.facts import bot_edit, bot_facts_list, bot_forget_answer, bot_remember
from memstore.calls.prompt import prompt_or_unavailable
from memstore.calls.recall import recall_answer
from memstore.registry.oauth_clients import READ as READ_SCOPE
from memstore.registry.oauth_clients import WRITE
from memstore.vocabulary import FactType, ScopeKind, Tier, Visibility, WritableScopeKind

__all__ = ["CALLER", "TOOL_SCOPES", "changes_tool", "server"]

INSTRUCTIONS = """\
Long-term memory for this bot. Every tool takes the room you are talking in: room_id,
room_kind (direct, group, routine, bot, event), person (direct rooms) and projects (up to 3),
unless this connection is bound to one room: then the tools list no room arguments.
The server decides what that room may read and write: a person's memory only in their direct
rooms, project memory only for projects the bot joined. Call prompt_section at the start of a
conversation, recall to search, remember to save one fact, report_exchange after each reply.
The same section is the resource memory://prompt/{room_kind}/{room_id}?person=…&projects=…
(memory://prompt on a bound connection); your own About me note is memory://about-me."""

server = MemoryServer("memory-console", title="Memory Console", instructions=INSTRUCTIONS)
resources_add(server)


@server.tool(title="Remember a fact", annotations=ADD)
async def remember(
    text: Annotated[str, Field(description="One fact, at most 500 characters.")],
    scope: WritableScopeKind = "bot",
    project: Project = None,
    tier: Annotated[Tier, Field(description="profile (lasting), log, note, episode.")] = "log",
    type: FactType | None = None,
    importance: Annotated[float | None, Field(ge=0, le=1)] = None,
    visibility: Visibility | None = None,
    until: Annotated[str | None, Field(description=UNTIL_HELP)] = None,
    review: Annotated[str | None, Field(description=REVIEW_HELP)] = None,
    room_id: RoomId = None,
    room_kind: Kind = None,
    person: Person = None,
    projects: Projects = [],  # noqa: B006 - pydantic copies defaults
    weight: Annotated[
        float | None, Field(description="scope=server only (apps): 0.1-10, weightiest first.")
    ] = None,
) -> RememberOut:
    """Save a fact in the bot's own memory (default), the person's memory (direct rooms only),
    a joined project's memory, or (apps only) the workspace's (scope server, with a weight).
    Saving the same text again writes nothing and answers with the stored copy (existed: true)."""
    body = checked(
        RememberIn,
        text=text,
        scope=scope,
        project=project,
        tier=tier,
        type=type,
        importance=importance,
        visibility=visibility,
        until=until,
        review=review,
        weight=weight,
    )

    def call() -> RememberOut:
        ctx = room_context(room_id, room_kind, person, projects)
        fact = bot_remember(
            ctx=ctx,
            text=body.text,
            scope=body.scope,
            project=body.project,
            tier=body.tier,
            meta=body.meta(),
            via="tool",
        )
        return RememberOut.of_saved(fact)

    return await run_call(call)


@server.tool(title="Recall memory", annotations=READ)
async def recall(
    query: Annotated[str, Field(description="Words or a question.")],
    limit: Annotated[int, Field(ge=1, le=50)] = 20,
    room_id: RoomId = None,
    room_kind: Kind = None,
    person: Person = None,
    projects: Projects = [],  # noqa: B006
    rerank: Annotated[
        bool | None,
        Field(description="Rerank the top (true), skip it (false), or as configured (unset)."),
    ] = None,
    explain: Annotated[
        bool, Field(description="Also say why each result came where it did.")
    ] = False,
) -> RecallOut:
    """Search what this room may read (own memory, the person's in direct rooms, the projects
    in play, this group room's legacy memory) by words and, with an embedding model, meaning."""
    params = checked(RecallQuery, query=query, limit=limit, rerank=rerank, explain=explain)

    def call() -> RecallOut:
        ctx = room_context(room_id, room_kind, person, projects)
        answer = recall_answer(
            ctx=ctx,
            query=params.query,
            limit=params.limit,
            rerank=params.rerank,
            explain=params.explain,
        )
        return RecallOut.of(answer)

    return await run_call(call)


@server.tool(title="Forget a fact", annotations=REMOVE)
async def forget(
    id: FactId | None = None,
    text: Annotated[str | None, Field(description="The fact's text (any case).")] = None,
    scope: ScopeKind | None = None,
    project: Project = None,
    room_id: RoomId = None,
    room_kind: Kind = None,
    person: Person = None,
    projects: Projects = [],  # noqa: B006
    erase: Annotated[
        bool,
        Field(
            description="Also leave no trace of its text where this bot may manage (history, "
            "embeddings, stored exchanges and replies), as the API's erase."
        ),
    ] = False,  # fmt: skip
) -> ForgetOut:
    """Forget a fact by id or by text from every shard this bot may change here (or one
    scope), listing the copies other bots' shards still hold (`remaining`: they still reach
    this bot's prompt); `erase` also erases its text (the API's erase=true). Refused with
    not_found if none held it, held_by_other_bots if only other bots' shards do."""
    body = checked(ForgetIn, id=id, text=text, scope=scope, project=project, erase=erase)

    def call() -> ForgetOut:
        ctx = room_context(room_id, room_kind, person, projects)
        answer = bot_forget_answer(
            ctx=ctx,
            fact_id=body.id,
            text=body.text,
            scope=body.scope,
            project=body.project,
            erase=body.erase,
            via="tool",
        )
        return ForgetOut.of(answer)

    return await run_call(call)


@server.tool(title="List facts", annotations=READ)
async def list_facts(
    scope: ScopeKind | None = None,
    project: Project = None,
    tier: Tier | None = None,
    month: Annotated[str | None, Field(description="YYYY-MM")] = None,
    contains: Annotated[str | None, Field(description="Text contains this.")] = None,
    expired: Annotated[
        bool | None, Field(description="true: only facts past their until day; false: the others.")
    ] = None,
    offset: Annotated[int, Field(ge=0)] = 0,
    limit: Annotated[int, Field(ge=1, le=200)] = 50,
    room_id: RoomId = None,
    room_kind: Kind = None,
    person: Person = None,
    projects: Projects = [],  # noqa: B006
) -> FactPageOut:
    """Facts this room may read, newest first (hidden facts are not listed; facts past their
    until day are, marked expired)."""
    filters = checked(
        ListFilters,
        scope=scope,
        project=project,
        tier=tier,
        month=month,
        q=contains,
        expired=expired,
        offset=offset,
        limit=limit,
    )

    def call() -> FactPageOut:
        page = bot_facts_list(
            ctx=room_context(room_id, room_kind, person, projects),
            scope=filters.scope,
            project=filters.project,
            tier=filters.tier,
            month=filters.month,
            contains=filters.q,
            expired=filters.expired,
            offset=filters.offset,
            limit=filters.limit,
        )
        return FactPageOut.of(page)

    return await run_call(call)


@server.tool(title="Edit a fact", annotations=CHANGE)
async def edit_fact(
    id: FactId,
    text: Annotated[str, Field(description="The new text, at most 500 characters.")],
    expected_text: Annotated[
        str | None, Field(description="Refuse (conflict) if the fact no longer reads so.")
    ] = None,
    scope: WritableScopeKind | None = None,
    project: Project = None,
    until: Annotated[str | None, Field(description=UNTIL_HELP + " '' removes it.")] = None,
    review: Annotated[str | None, Field(description=REVIEW_HELP + " '' removes it.")] = None,
    room_id: RoomId = None,
    room_kind: Kind = None,
    person: Person = None,
    projects: Projects = [],  # noqa: B006
) -> FactOut:
    """Replace a fact's text in place (same file, line and date; its id changes with its text);
    `until`/`review` set or ('') remove those dates (an expired fact comes back with a later
    until)."""
    body = checked(
        EditIn,
        text=text,
        expected_text=expected_text,
        scope=scope,
        project=project,
        until=until or None,
        review=review or None,
    )
    # Unset keeps a date; '' removes it.
    dropped = {k: None for k, v in (("until", until), ("review", review)) if v == ""}
    meta = {**(body.meta() or {}), **dropped} or None

    def call() -> FactOut:
        fact = bot_edit(
            ctx=room_context(room_id, room_kind, person, projects),
            fact_id=id,
            text=body.text,
            expected_text=body.expected_text,
            scope=body.scope,
            project=body.project,
            via="tool",
            meta=meta,
        )
        return FactOut.of(fact)

    return await run_call(call)


@server.tool(title="Memory for the prompt", annotations=READ)
async def prompt_section(
    room_id: RoomId = None,
    room_kind: Kind = None,
    person: Person = None,
    projects: Projects = [],  # noqa: B006
) -> PromptOut:
    """The memory section of this bot's prompt for this room: the person's memory (direct
    rooms), up to 3 projects, then its own memory, each block within its budget."""

    def call() -> PromptOut:
        answer = prompt_or_unavailable(
            open_context=lambda: room_context(room_id, room_kind, person, projects)
        )
        return PromptOut.of(answer)

    return await run_call(call)


@server.tool(title="Report an exchange", annotations=ADD)
async def report_exchange(
    message: Annotated[str, Field(description="What the person said.")],
    reply: Annotated[str, Field(description="What the bot answered.")],
    message_id: Annotated[str, Field(description="The message's id in your system.")],
    reply_id: Annotated[str, Field(description="The reply's id in your system.")],
    recalled: Annotated[
        list[str], Field(description="Ids or texts of facts recalled for this reply.")
    ] = [],  # noqa: B006
    room_id: RoomId = None,
    room_kind: Kind = None,
    person: Person = None,
    projects: Projects = [],  # noqa: B006
    guests: Annotated[
        bool, Field(description="Someone from outside the workspace took part: learn nothing.")
    ] = False,
    digest: Annotated[
        str, Field(description="The prompt_section's digest this reply was built with.")
    ] = "",
) -> ExchangeOut:
    """Report a message and the reply delivered, for learning in the background (direct and
    group rooms; small talk, exchanges a guest took part in and anything reported while learning
    is off are skipped, never learned later), recording which memories shaped the reply
    (retrieved, injected, cited). Reporting the same ids again returns the first receipt."""
    body = checked(
        ExchangeIn,
        message=message,
        reply=reply,
        message_id=message_id,
        reply_id=reply_id,
        recalled=recalled,
        guests=guests,
        digest=digest,
    )

    def call() -> ExchangeOut:
        ctx = room_context(room_id, room_kind, person, projects)
        return ExchangeOut.of(exchange_submit(ctx=ctx, **body.model_dump()))

    return await run_call(call)


@server.tool(title="Summarize a conversation", annotations=ADD)
async def summarize(
    text: Annotated[str, Field(description="A long text: a document, notes, a chat log.")],
    scope: WritableScopeKind | None = None,
    project: Project = None,
    room_id: RoomId = None,
    room_kind: Kind = None,
    person: Person = None,
    projects: Projects = [],  # noqa: B006
) -> SummarizeOut:
    """Pull the facts worth keeping out of a long text (at most 20,000 characters) with the
    learning model: saved in write mode, proposed in report mode, with what was refused and why."""
    body = checked(SummarizeIn, text=text, scope=scope, project=project)

    def call() -> SummarizeOut:
        summary = text_summarize(
            ctx=room_context(room_id, room_kind, person, projects),
            text=body.text,
            scope=body.scope,
            project=body.project,
        )
        return SummarizeOut.of(summary)

    return await run_call(call)


server.tool(title="Give feedback on a fact", annotations=CHANGE)(feedback)

# The grant each tool needs, of an OAuth connection and of a bot token alike
# (`memoryconsole.mcp.oauth.scope_needed`: a tool missing here needs memory:write).
TOOL_SCOPES = {
    **dict.fromkeys(("recall", "list_facts", "prompt_section", "changes"), READ_SCOPE),
    **dict.fromkeys(
        ("remember", "forget", "edit_fact", "report_exchange", "summarize", "feedback"), WRITE
    ),
}
from memoryconsole.mcp import changes as changes_tool  # noqa: E402  (registers on `server`)
