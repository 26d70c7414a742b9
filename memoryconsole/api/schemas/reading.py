"""Request and response shapes of recall, the prompt section and the bot itself, and the error
body (learning's are `memoryconsole.api.schemas.learning`)."""

import datetime as dt
from typing import Annotated, Any, Literal

from django.utils import timezone
from ninja import Field, Schema
from pydantic import AfterValidator

from memoryconsole.api.schemas.base import (
    Day,
    Out,
    StrictIn,
    Text,
    not_blank,
)
from memoryconsole.api.schemas.explain import MEANING_DOC, TIERS_DOC, ExplainOut, Meaning, TiersOut
from memoryconsole.api.schemas.facts import (
    FactOut,
)
from memstore.vocabulary import (
    Grant,
    LinkKind,
    NoteKind,
)

# --- recall and prompt ---------------------------------------------------------------------------


_STALE = (
    "true: the files could not be synced within the time budget (or a large change is still "
    "being indexed in the background); the index as it stood."
)
_MEMORY = (
    "unavailable: memory could not be read (the database can't be reached, or nothing was "
    "ready within the time budget); answered without it."
)
_PARTIAL = (
    "true: the time budget ran out before the answer was complete; this is what was ready "
    "(`partial_reason` says what is missing)."
)
_INDEXING = (
    "Facts changed on disk still being indexed (with `stale`): not in this answer yet; the "
    "note says so in words."
)
_PARTIAL_REASON = "Why the answer is partial or without memory for want of time; empty otherwise."


class RecallQuery(Schema):
    query: Annotated[Text, AfterValidator(not_blank)] = Field(
        min_length=1, max_length=1000, description="Words or a question (not only spaces)."
    )
    limit: int = Field(20, ge=1, le=50)
    neighbours: bool = Field(
        False, description="Also return the facts linked to the results (one hop, both ways)."
    )
    rerank: bool | None = Field(
        None,
        description="Rerank the top with the configured reranker (RECALL_RERANK); false: "
        "skip it; unset: as configured.",
    )
    explain: bool = Field(
        False, description="Also say why each result came where it did (`explain` in the answer)."
    )
    expect: list[Annotated[str, Field(max_length=1000)]] = Field(
        default_factory=list,
        max_length=10,
        description="With explain=true: fact ids or texts you expected; the answer says where "
        "each fell and why. A fact this room may not read is only 'not visible to this room'.",
    )


class LinkOut(Out):
    """`source` --kind--> `target` (fact ids)."""

    source: str
    kind: LinkKind
    target: str


class PromptQuery(Schema):
    as_of: Day | None = Field(
        None, description="YYYY-MM-DD: the section as it was at the end of that day (UTC)."
    )


class RecallOut(Out):
    items: list[FactOut]
    more: int = Field(description="How many more facts matched beyond these.")
    more_capped: bool = Field(
        False,
        description="The count stopped at its cap (a query matching only as typed, in over "
        '1,000 facts): `more` is a lower bound, shown as "995+".',
    )
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
    partial: bool = Field(False, description=_PARTIAL)
    partial_reason: str = Field("", description=_PARTIAL_REASON)
    waiting: int = Field(
        0,
        description="Facts searched by their words only: their meaning (vectors) is still being "
        "computed in the background.",
    )
    searched: int = Field(0, description="Facts in the searched memory.")
    indexing: int = Field(0, description=_INDEXING)
    meaning: Meaning = Field("words", description=MEANING_DOC)
    tiers: TiersOut = Field(default_factory=lambda: TiersOut(), description=TIERS_DOC)
    reranked: bool = Field(False, description="The top was reordered by the reranker.")
    explain: ExplainOut | None = Field(None, description="With explain=true: why, per result.")

    @classmethod
    def of(cls, timed: Any, near: Any = None) -> "RecallOut":
        """A budgeted recall (`memstore.calls.recall.recall_answer`), with its links when asked for."""
        result = timed.value
        found = {f.fact_id for f in result.items}
        today = timezone.localdate()
        return cls(
            items=[FactOut.of(f, today=today) for f in result.items],
            more=result.more,
            more_capped=result.more_capped,
            mode=result.mode,
            note=result.note,
            stale=timed.stale,
            memory=timed.memory,
            partial=bool(timed.partial_reason) and timed.memory == "ok",
            partial_reason=timed.partial_reason,
            waiting=result.waiting,
            searched=result.searched,
            indexing=result.indexing,
            meaning=result.meaning,
            tiers=TiersOut.of(result.tiers),
            reranked=result.reranked,
            explain=ExplainOut.of(result.explain) if result.explain is not None else None,
            links=[LinkOut(source=e.source, kind=e.kind, target=e.target) for e in near.edges]
            if near
            else [],
            neighbours=[
                FactOut.of(f, today=today)
                for fid, f in sorted(near.facts.items())
                if fid not in found
            ]
            if near
            else [],
        )


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
    partial: bool = Field(False, description=_PARTIAL)
    partial_reason: str = Field("", description=_PARTIAL_REASON)
    indexing: int = Field(0, description=_INDEXING)
    digest: str = Field(
        "",
        description="This section's digest (16 hex digits): send it back as report_exchange's "
        "`digest` so the facts in it are recorded as injected into that reply.",
    )

    @classmethod
    def of(cls, answer: Any) -> "PromptOut":
        """The answer of `memstore.prompt.answer.prompt_answer`, as the API and MCP send it."""
        return cls(
            text=answer.text,
            notes=[NoteOut.of(n) for n in answer.notes],
            stale=answer.stale,
            memory=answer.memory,
            partial=bool(answer.partial_reason) and answer.memory == "ok",
            partial_reason=answer.partial_reason,
            indexing=answer.indexing,
            digest=answer.digest,
            blocks=[
                BlockOut(
                    title=b.title,
                    scope=str(b.scope),
                    facts=[FactOut.of(f) for f in b.facts],
                    left_out=b.left_out,
                )
                for b in answer.section.blocks
            ],
        )


class ChangesIn(StrictIn):
    previous: Text = Field(max_length=200_000, description="The section text you built before.")


class ChangesOut(Out):
    added: list[str]
    removed: list[str] = Field(
        description="Lines whose fact is no longer in memory (forgotten, erased, expired, hidden)."
    )
    left: list[str] = Field(
        description="Lines that left the section but whose fact is still in memory: pushed out "
        "of its budget by other facts (recall still finds them)."
    )
    text: str = Field(
        description="A short note: + added, \u2212 removed, ~ left the section; empty when "
        "nothing changed."
    )


# --- the bot and errors --------------------------------------------------------------------------


class MeOut(Out):
    bot: str
    display_name: str
    in_groups: bool
    projects: list[str]
    grants: list[Grant] = Field(
        description="What this token may do: memory:read, memory:write (a write without "
        "memory:write is 403 missing_grant)."
    )
    read_only_projects: list[str] = Field(
        description="The projects whose memory this bot may read but not write."
    )


class DatabaseHealthOut(Out):
    state: Literal["ok", "unavailable"]
    ms: float = Field(description="How long the check took.")
    error: str = Field("", description="Why it is unavailable.")


class VolumeHealthOut(Out):
    state: Literal["ok", "full", "read_only"]
    free_bytes: int
    total_bytes: int


class QueueHealthOut(Out):
    waiting: int = Field(description="Exchanges queued for learning, not yet taken.")
    oldest_seconds: float | None = Field(description="Age of the oldest waiting exchange.")
    workers: int = Field(description="Learning workers with a heartbeat in the last 30 s.")


class HealthOut(Out):
    """200 while the server can answer (`degraded`: memory can be read, not written); 503
    (`unavailable`) while the database is down, so a load balancer takes the server out."""

    status: Literal["ok", "degraded", "unavailable"]
    problems: list[str] = Field(
        description="database_unavailable, memory_volume_full, memory_volume_read_only."
    )
    database: DatabaseHealthOut
    memory_volume: VolumeHealthOut
    queue: QueueHealthOut | None = Field(description="None while the database is unavailable.")

    @classmethod
    def of(cls, health: Any) -> "HealthOut":
        """A `memstore.upkeep.readiness.ServerHealth`."""
        volume = health.volume
        state = "read_only" if volume.read_only else "full" if volume.full else "ok"
        status = "unavailable" if health.database != "ok" else "degraded" if state != "ok" else "ok"
        queue = health.queue
        return cls(
            status=status,
            problems=health.problems,
            database=DatabaseHealthOut(
                state=health.database, ms=health.database_ms, error=health.database_error
            ),
            memory_volume=VolumeHealthOut(
                state=state, free_bytes=volume.free_bytes, total_bytes=volume.total_bytes
            ),
            queue=QueueHealthOut(
                waiting=queue.waiting, oldest_seconds=queue.oldest_seconds, workers=queue.workers
            )
            if queue
            else None,
        )


class ErrorOut(Out):
    """Every error: a stable code, a message for a person, and details (may be empty)."""

    code: str
    message: str
    detail: dict[str, Any]
