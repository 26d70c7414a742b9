"""Request and response shapes of the fact operations: remember, forget, edit, list."""

import datetime as dt
from functools import lru_cache
from typing import Any, Self

from django.utils import timezone
from ninja import Field, Schema
from pydantic import model_validator

from memoryconsole.api.schemas.base import (
    FACT_ID,
    SLUG,
    Day,
    Out,
    StrictIn,
    Text,
    check_project,
)
from memstore.calls.facts import (
    MAX_TEXT_CHARS,
    Forgetting,
    Scope,
    StoredFact,
    is_expired,
    locate,
)
from memstore.vocabulary import (
    MAX_WEIGHT,
    MIN_WEIGHT,
    VISIBILITIES,
    FactType,
    ScopeKind,
    Tier,
    Visibility,
    WritableScopeKind,
)

# --- facts ---------------------------------------------------------------------------------------

UNTIL_HELP = (
    "YYYY-MM-DD: the last day the fact is true. After it the fact leaves prompts and recall "
    "(kept in its file and listed with expired=true)."
)
REVIEW_HELP = "YYYY-MM-DD: the day a person should check the fact (Health lists it from then)."


# A response names the scope of every fact it lists, and a page of facts holds a handful of
# scopes: each key is parsed (and its name checked) once per process, not twice per fact.
_scope_of = lru_cache(maxsize=4096)(Scope.parse)


def _meta_value(value: object) -> object:
    return value.isoformat() if isinstance(value, dt.date) else value


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
    expired: bool = Field(
        False,
        description="Its `until` day has passed: kept in the file, but left out of prompts and "
        "recall (edit `until` to bring it back).",
    )

    @classmethod
    def of(cls, fact: StoredFact, *, today: dt.date | None = None, **extra: Any) -> Self:
        """The fact as answered; `today` (the local day `expired` is judged against) once per
        response when it lists many."""
        scope = _scope_of(fact.scope)
        return cls(
            id=fact.fact_id,
            date=fact.day,
            text=fact.text,
            tier=fact.tier,
            scope=scope.kind,
            scope_name=scope.name,
            bot=fact.shard_bot,
            file=fact.file,
            visibility=fact.visibility if fact.visibility in VISIBILITIES else "context",
            meta=fact.meta,
            expired=is_expired(fact.meta, today or timezone.localdate()),
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
    project memory only for joined projects, workspace memory (server) only by an app's token."""

    text: Text = Field(
        min_length=1,
        max_length=MAX_TEXT_CHARS,
        description=f"One line, at most {MAX_TEXT_CHARS} chars.",
    )
    scope: WritableScopeKind = Field(
        "bot",
        description="bot (own memory), user (the person's; direct rooms), project, or server "
        "(the workspace's, loaded into every conversation; apps only).",
    )
    project: str | None = Field(None, pattern=SLUG, description="Required when scope=project.")
    tier: Tier = Field("log", description="profile (lasting), log, note (weight 0.5), episode.")
    weight: float | None = Field(
        None,
        ge=MIN_WEIGHT,
        le=MAX_WEIGHT,
        description=f"scope=server only: how much this record counts ({MIN_WEIGHT}-{MAX_WEIGHT}; "
        "4-5 critical, 1-2 nice to have): the weightiest load first into every conversation. "
        "No effect on searchable or hidden records.",
    )
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
    until: dt.date | None = Field(None, description=UNTIL_HELP)
    review: dt.date | None = Field(None, description=REVIEW_HELP)

    @model_validator(mode="after")
    def _project_named(self) -> "RememberIn":
        check_project(self.scope, self.project)
        if self.weight is not None and self.scope != "server":
            raise ValueError(
                "weight is only for workspace records (scope=server); other facts rank by "
                "tier and importance"
            )
        return self

    def meta(self) -> dict[str, object]:
        fields = ("type", "importance", "visibility", "src", "pin", "until", "review", "weight")
        return {k: _meta_value(getattr(self, k)) for k in fields if getattr(self, k) is not None}


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
    erase: bool = Field(
        False,
        description="Also leave no trace: history lines become tombstones (id, date, who "
        "erased; no longer restorable), cached embeddings are deleted and the text is redacted "
        "from this bot's stored exchanges, learning records and idempotent replies.",
    )

    @model_validator(mode="after")
    def _one_target(self) -> "ForgetIn":
        if (self.id is None) == (self.text is None):
            raise ValueError("give exactly one of id and text")
        check_project(self.scope, self.project)
        return self


class CopyOut(Out):
    """Where one copy of a fact is: its scope, the bot whose shard holds it, the file."""

    id: str
    scope: ScopeKind
    scope_name: str
    bot: str = Field(description="The bot whose shard holds this copy.")
    file: str

    @model_validator(mode="before")
    @classmethod
    def _where(cls, data: Any) -> Any:
        # Scope, its name and the shard's bot follow from the file: given the file, they are
        # filled in (so `CopyOut(id=..., file=...)` is complete).
        if isinstance(data, dict) and "scope" not in data and (at := locate(data.get("file", ""))):
            scope = at.shard.scope
            return {"scope": scope.kind, "scope_name": scope.name, "bot": at.shard.bot, **data}
        return data


class RemovedOut(CopyOut):
    line: str = Field(description="The line as it was in the file.")


class ErasedOut(Out):
    """What an erase cleaned besides the lines it removed."""

    history: int = Field(description="History lines turned into tombstones.")
    embeddings: int = Field(description="Cached embeddings deleted.")
    records: int = Field(description="Stored exchanges, learning events and replies redacted.")


class ForgetOut(Out):
    """What a forget removed (one entry per file that held the fact) and the copies it could
    not touch: other bots' shards of a shared scope it covered. While `remaining` is not empty
    the fact still reaches this bot's prompt."""

    forgotten: int = Field(description="How many lines were removed.")
    removed: list[RemovedOut]
    remaining: list[CopyOut] = Field(
        default_factory=list,
        description="Copies in other bots' shards (same identity) that this bot cannot change.",
    )
    erased: ErasedOut | None = Field(None, description="With erase=true: what else was cleaned.")

    @staticmethod
    def of(answer: Forgetting) -> "ForgetOut":
        erased = answer.erased
        return ForgetOut(
            forgotten=len(answer.removed),
            removed=[RemovedOut(id=c.fact_id, file=c.file, line=c.line) for c in answer.removed],
            remaining=[CopyOut(id=c.fact_id, file=c.file) for c in answer.remaining],
            erased=None
            if erased is None
            else ErasedOut(
                history=erased.history, embeddings=erased.embeddings, records=erased.records
            ),
        )


class EditIn(StrictIn):
    """New text for a fact. With expected_text, the edit is refused (409, current text in
    detail.current) if the fact no longer reads that way."""

    text: Text = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    expected_text: Text | None = Field(None, max_length=600)
    scope: WritableScopeKind | None = Field(
        None, description="Where the fact is; unset: looked up in what the bot may change here."
    )
    project: str | None = Field(None, pattern=SLUG)
    until: dt.date | None = Field(
        None, description=UNTIL_HELP + " null removes it; unset keeps it."
    )
    review: dt.date | None = Field(None, description=REVIEW_HELP + " null removes it.")

    @model_validator(mode="after")
    def _project_named(self) -> "EditIn":
        check_project(self.scope, self.project)
        return self

    def meta(self) -> dict[str, object | None] | None:
        """The dates to set (a date) or drop (None); None when the edit names neither."""
        given = [k for k in ("until", "review") if k in self.model_fields_set]
        return {k: _meta_value(getattr(self, k)) for k in given} or None


class ListedFactOut(FactOut):
    """A fact in a list: one row per fact and scope, naming the other copies of it."""

    also_in: list[CopyOut] = Field(
        default_factory=list,
        description="Other copies of this fact in the same scope (other bots' shards, other "
        "files): one fact, listed once; forget removes the copies this bot may change.",
    )


class FactPageOut(Out):
    items: list[ListedFactOut]
    total: int
    offset: int
    limit: int
    has_more: bool

    @staticmethod
    def of(page: Any) -> "FactPageOut":
        today = timezone.localdate()
        also_in = getattr(page, "also_in", {})
        return FactPageOut(
            items=[
                ListedFactOut.of(
                    f,
                    today=today,
                    also_in=[
                        CopyOut(id=c.fact_id, file=c.file)
                        for c in also_in.get((f.scope, f.fact_id), ())
                    ],
                )
                for f in page.items
            ],
            total=page.total,
            offset=page.offset,
            limit=page.limit,
            has_more=page.has_more,
        )


class ListFilters(Schema):
    scope: ScopeKind | None = Field(None, description="Only this scope (default: all readable).")
    project: str | None = Field(None, pattern=SLUG, description="With scope=project.")
    tier: Tier | None = None
    type: FactType | None = Field(
        None, description="Only facts of this type (a line without `type=` is a fact)."
    )
    month: str | None = Field(None, pattern=r"^\d{4}-(0[1-9]|1[0-2])$", description="YYYY-MM")
    q: Text | None = Field(None, max_length=200, description="Text contains this (any case).")
    expired: bool | None = Field(
        None,
        description="true: only facts past their `until` day; false: only the others "
        "(default: both, each saying `expired`).",
    )
    as_of: Day | None = Field(
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
