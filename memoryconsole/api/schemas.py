"""The bots' contract: every request and response shape of the API, written out field by field.

No ModelSchema: index columns must not leak into the contract. Requests are ninja Schemas;
responses are plain pydantic models (see `Out`). Input strings refuse NUL and lone
surrogates (they can't be stored in a file or in Postgres), and input objects refuse unknown
fields, so a caller can't name a shard or a bot it is not.
"""

import datetime as dt
from typing import Annotated, Any, Literal, Self

from ninja import Field, Schema
from pydantic import AfterValidator, BaseModel, ConfigDict, model_validator

from memstore.access import MAX_PROJECTS
from memstore.markdown import MAX_TEXT_CHARS
from memstore.records import StoredFact
from memstore.vocabulary import (
    FACT_ID_PATTERN,
    MESSAGE_ID_PATTERN,
    PERSON_PATTERN,
    ROOM_PATTERN,
    SLUG_PATTERN,
    VISIBILITIES,
    FactType,
    LinkKind,
    NoteKind,
    RoomKind,
    ScopeKind,
    Tier,
    Visibility,
    WritableScopeKind,
    anchored,
)

SLUG = anchored(SLUG_PATTERN)
FACT_ID = anchored(FACT_ID_PATTERN)
MESSAGE_ID = anchored(MESSAGE_ID_PATTERN)
# Up to MAX_PROJECTS slugs, comma-separated, spaces allowed around them.
_PROJECT_LIST = rf"^\s*({SLUG_PATTERN}(\s*,\s*{SLUG_PATTERN}){{0,{MAX_PROJECTS - 1}}})?\s*$"


def _storable(value: str) -> str:
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text (no lone surrogates)") from None
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank: send words or a question")
    return value


Text = Annotated[str, AfterValidator(_storable)]


class StrictIn(Schema):
    """A request body: unknown fields are refused."""

    model_config = ConfigDict(extra="forbid")


class Out(BaseModel):
    """A response shape. Plain pydantic, not ninja.Schema: ninja's Schema reads every nested
    object through a Python attribute getter, which cost ~10 ms on a 250-fact prompt section."""


# --- context -------------------------------------------------------------------------------------


class ContextHeaders(Schema):
    """Where the bot is talking: sent as headers on every memory call."""

    room_id: str = Field(
        alias="X-Room-Id",
        pattern=anchored(ROOM_PATTERN),
        description="The conversation's id (letters, digits and . _ : -).",
    )
    room_kind: RoomKind = Field(
        alias="X-Room-Kind",
        description="direct (one person, one bot), group, routine, bot (bot-to-bot) or event.",
    )
    person: str = Field(
        "",
        alias="X-Person",
        pattern=f"^({PERSON_PATTERN})?$",
        description="The person's username. Required in direct rooms; ignored elsewhere.",
    )
    projects: str = Field(
        "",
        alias="X-Projects",
        pattern=_PROJECT_LIST,
        description=f"Up to {MAX_PROJECTS} comma-separated project slugs in play; the bot must "
        "have joined them.",
    )

    @property
    def project_list(self) -> list[str]:
        return [p.strip() for p in self.projects.split(",") if p.strip()]


# --- facts ---------------------------------------------------------------------------------------


class FactOut(Out):
    """One fact as stored: its id (identity), date, text and where it lives."""

    id: str = Field(description="16 hex digits of SHA-1 over the normalised text.")
    date: dt.date
    text: str = Field(description="The text; log notes and episodes start with [note]/[episode].")
    tier: Tier
    scope: ScopeKind
    scope_name: str = Field(description="The bot, person, project or room the scope belongs to.")
    bot: str = Field(description="The bot whose shard holds this line.")
    file: str = Field(description="The Markdown file, relative to the memory folder.")
    visibility: Visibility
    meta: dict[str, str] = Field(description="The line's metadata (type, importance, src, ...).")

    @classmethod
    def of(cls, fact: StoredFact, **extra: Any) -> Self:
        return cls(
            id=fact.fact_id,
            date=fact.day,
            text=fact.text,
            tier=fact.tier,
            scope=fact.scope_kind,
            scope_name=fact.scope_name,
            bot=fact.shard_bot,
            file=fact.file,
            visibility=fact.visibility if fact.visibility in VISIBILITIES else "context",
            meta=fact.meta,
            **extra,
        )


class RememberOut(FactOut):
    """The fact saved (201), or the copy already stored in the target scope (200, existed)."""

    existed: bool = Field(
        description="The fact was already stored in the target scope (profile or any month, any "
        "shard): nothing was written and this is the stored copy (status 200)."
    )

    @classmethod
    def of_saved(cls, fact: StoredFact) -> Self:
        return cls.of(fact, existed=fact.existed)


class RememberIn(StrictIn):
    """A fact to save. The scope is checked against the room: user memory only in direct rooms,
    project memory only for joined projects."""

    text: Text = Field(
        min_length=1,
        max_length=MAX_TEXT_CHARS,
        description=f"One line, at most {MAX_TEXT_CHARS} chars.",
    )
    scope: WritableScopeKind = "bot"
    project: str | None = Field(None, pattern=SLUG, description="Required when scope=project.")
    tier: Tier = Field("log", description="profile (lasting), log, note (weight 0.5), episode.")
    type: FactType | None = None
    importance: float | None = Field(None, ge=0, le=1)
    visibility: Visibility | None = Field(
        None, description="hidden facts never reach prompts; private ones only direct rooms."
    )
    src: str | None = Field(
        None,
        pattern=r"^[^\s<>]{1,200}$",
        description="Provenance, e.g. room:42/msg:981 (no spaces).",
    )
    pin: bool | None = Field(None, description="Saved on purpose: upkeep never touches it.")

    @model_validator(mode="after")
    def _project_named(self) -> "RememberIn":
        check_project(self.scope, self.project)
        return self

    def meta(self) -> dict[str, object]:
        fields = ("type", "importance", "visibility", "src", "pin")
        return {k: getattr(self, k) for k in fields if getattr(self, k) is not None}


class ForgetIn(StrictIn):
    """Which fact to forget: its id, or its text (case and spacing ignored)."""

    id: str | None = Field(None, pattern=FACT_ID)
    text: Text | None = Field(None, min_length=1, max_length=600)
    scope: ScopeKind | None = Field(
        None,
        description="Only this scope. Unset: every shard the bot may change here, including its "
        "copies in legacy rooms (scope=room means just those).",
    )
    project: str | None = Field(None, pattern=SLUG)

    @model_validator(mode="after")
    def _one_target(self) -> "ForgetIn":
        if (self.id is None) == (self.text is None):
            raise ValueError("give exactly one of id and text")
        check_project(self.scope, self.project)
        return self


class RemovedOut(Out):
    id: str
    file: str
    line: str = Field(description="The line as it was in the file.")


class ForgetOut(Out):
    """What a forget removed (one entry per file that held the fact)."""

    forgotten: int
    removed: list[RemovedOut]


class EditIn(StrictIn):
    """New text for a fact. With expected_text, the edit is refused (409, current text in
    detail.current) if the fact no longer reads that way."""

    text: Text = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    expected_text: Text | None = Field(None, max_length=600)
    scope: WritableScopeKind | None = Field(
        None, description="Where the fact is; unset: looked up in what the bot may change here."
    )
    project: str | None = Field(None, pattern=SLUG)

    @model_validator(mode="after")
    def _project_named(self) -> "EditIn":
        check_project(self.scope, self.project)
        return self


class FactPageOut(Out):
    items: list[FactOut]
    total: int
    offset: int
    limit: int
    has_more: bool

    @staticmethod
    def of(page: Any) -> "FactPageOut":
        return FactPageOut(
            items=[FactOut.of(f) for f in page.items],
            total=page.total,
            offset=page.offset,
            limit=page.limit,
            has_more=page.has_more,
        )


class ListFilters(Schema):
    scope: ScopeKind | None = Field(None, description="Only this scope (default: all readable).")
    project: str | None = Field(None, pattern=SLUG, description="With scope=project.")
    tier: Tier | None = None
    month: str | None = Field(None, pattern=r"^\d{4}-(0[1-9]|1[0-2])$", description="YYYY-MM")
    q: Text | None = Field(None, max_length=200, description="Text contains this (any case).")
    as_of: dt.date | None = Field(
        None, description="YYYY-MM-DD: the facts held at the end of that day (from history)."
    )
    offset: int = Field(0, ge=0, le=1_000_000)
    limit: int = Field(50, ge=1, le=200)

    @model_validator(mode="after")
    def _project_named(self) -> "ListFilters":
        check_project(self.scope, self.project)
        return self


class ForgetWhere(Schema):
    scope: WritableScopeKind | None = Field(None, description="Only this scope (default: all).")
    project: str | None = Field(None, pattern=SLUG, description="With scope=project.")

    @model_validator(mode="after")
    def _project_named(self) -> "ForgetWhere":
        check_project(self.scope, self.project)
        return self


# --- recall and prompt ---------------------------------------------------------------------------


_STALE = "true: the files could not be synced within the time budget; the index as it stood."
_MEMORY = "unavailable: memory could not be read within the time budget; answered without it."


class RecallQuery(Schema):
    query: Annotated[Text, AfterValidator(_not_blank)] = Field(
        min_length=1, max_length=1000, description="Words or a question (not only spaces)."
    )
    limit: int = Field(20, ge=1, le=50)
    neighbours: bool = Field(
        False, description="Also return the facts linked to the results (one hop, both ways)."
    )


class LinkOut(Out):
    """`source` --kind--> `target` (fact ids)."""

    source: str
    kind: LinkKind
    target: str


class PromptQuery(Schema):
    as_of: dt.date | None = Field(
        None, description="YYYY-MM-DD: the section as it was at the end of that day (UTC)."
    )


class RecallOut(Out):
    items: list[FactOut]
    more: int = Field(description="How many more facts matched beyond these.")
    mode: Literal["hybrid", "lexical", "semantic"] = Field(
        description="hybrid (words and meaning) when an embedding model is installed, else lexical."
    )
    note: str = ""
    links: list[LinkOut] = Field(
        default_factory=list, description="With neighbours=true: links touching the results."
    )
    neighbours: list[FactOut] = Field(
        default_factory=list,
        description="With neighbours=true: the linked facts that are not results themselves.",
    )
    stale: bool = Field(False, description=_STALE)
    memory: Literal["ok", "unavailable"] = Field("ok", description=_MEMORY)


class BlockOut(Out):
    title: str
    scope: str
    facts: list[FactOut]
    left_out: int = Field(description="Facts of this block left on disk (over count or budget).")


class NoteOut(Out):
    """An always-on note: workspace (About this workspace), you (About you), me (About me)."""

    kind: NoteKind
    name: str = Field(description="The person (you) or bot (me); empty for the workspace.")
    title: str
    text: str
    updated: dt.datetime | None = Field(description="When the file last changed; null if never.")

    @staticmethod
    def of(note: Any) -> "NoteOut":
        return NoteOut(
            kind=note.kind, name=note.name, title=note.title, text=note.text, updated=note.updated
        )


class PromptOut(Out):
    text: str = Field(description="The memory section, ready to put in a system prompt.")
    notes: list[NoteOut] = Field(description="The always-on notes that open the section.")
    blocks: list[BlockOut]
    stale: bool = Field(False, description=_STALE)
    memory: Literal["ok", "unavailable"] = Field("ok", description=_MEMORY)


class ChangesIn(StrictIn):
    previous: Text = Field(max_length=200_000, description="The section text you built before.")


class ChangesOut(Out):
    added: list[str]
    removed: list[str]
    text: str = Field(description="A short note of +/- lines; empty when nothing changed.")


# --- learning ------------------------------------------------------------------------------------


class ExchangeIn(StrictIn):
    """One exchange (after the reply was delivered), for the learner to consider."""

    message: Text = Field(min_length=1, max_length=40_000, description="What the person said.")
    reply: Text = Field(max_length=40_000, description="What the bot answered.")
    message_id: str = Field(pattern=MESSAGE_ID, description="The message's id in your system.")
    reply_id: str = Field(pattern=MESSAGE_ID, description="The reply's id in your system.")
    recalled: list[Annotated[Text, Field(max_length=600)]] = Field(
        default_factory=list,
        max_length=200,
        description="Ids or texts of facts recalled for this reply (so they aren't re-learned).",
    )


class ExchangeOut(Out):
    id: str
    status: Literal["queued", "skipped"]
    reason: str = Field(
        "", description="Why it was skipped: small_talk, room_kind, paused or off (no model)."
    )


# --- the bot and errors --------------------------------------------------------------------------


class MeOut(Out):
    bot: str
    display_name: str
    in_groups: bool
    projects: list[str]


class HealthOut(Out):
    status: Literal["ok"]


class ErrorOut(Out):
    """Every error: a stable code, a message for a person, and details (may be empty)."""

    code: str
    message: str
    detail: dict[str, Any]


def check_project(scope: str | None, project: str | None) -> None:
    """A project is named exactly when the scope is project."""
    if scope == "project" and not project:
        raise ValueError("name the project when scope is project")
    if scope != "project" and project:
        raise ValueError("project is only used with scope=project")
