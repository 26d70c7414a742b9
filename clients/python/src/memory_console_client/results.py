"""The shapes the API answers with, as TypedDicts: the JSON a call returns, typed field by field.

They mirror the response schemas of the bots' API (`/api/openapi.json`); a field the server adds
later is still in the dict, just not named here. Dates are ISO strings (`YYYY-MM-DD`), as sent.
"""

from typing import Literal, TypedDict

RoomKind = Literal["direct", "group", "routine", "bot", "event"]
Scope = Literal["bot", "user", "project", "room", "server"]
WritableScope = Literal["bot", "user", "project", "server"]
Tier = Literal["profile", "log", "note", "episode"]
Visibility = Literal["context", "searchable", "hidden", "private"]
FactType = Literal["fact", "preference", "decision", "learning", "context"]
FeedbackVerb = Literal["useful", "outdated", "wrong", "do-not-use"]
LinkKind = Literal[
    "related_to",
    "supersedes",
    "exemplifies",
    "caused_by",
    "leads_to",
    "depends_on",
    "references",
    "spawns",
    "validates",
]


class Fact(TypedDict):
    """One fact as stored: its id (16 hex digits of its normalised text) and where it lives."""

    id: str
    date: str
    text: str
    tier: Tier
    scope: Scope
    scope_name: str
    bot: str
    file: str
    visibility: Visibility
    meta: dict[str, str]
    expired: bool  # past its `until` day: kept, but out of prompts and recall


class SavedFact(Fact):
    """What `remember` answers: the fact saved, or (`existed`) the copy already stored."""

    existed: bool


class FactPage(TypedDict):
    items: list["ListedFact"]
    total: int
    offset: int
    limit: int
    has_more: bool


class Link(TypedDict):
    source: str
    kind: LinkKind
    target: str


class Tiers(TypedDict):
    """Facts with their full vector, waiting ones judged by the quicker first tier, and waiting
    ones found by their words only."""

    full: int
    static: int
    words: int


class Recall(TypedDict):
    """Search results; `stale`, `partial` or `memory == "unavailable"` say the time budget ran
    out (`partial`: what was ready, the words side; `partial_reason` says why)."""

    items: list[Fact]
    more: int
    more_capped: bool  # the count stopped at its cap: `more` is a lower bound ("995+")
    mode: Literal["hybrid", "lexical", "semantic"]
    note: str
    links: list[Link]
    neighbours: list[Fact]
    stale: bool
    memory: Literal["ok", "unavailable"]
    partial: bool  # the budget ran out: what was ready (the words side)
    partial_reason: str
    waiting: int
    searched: int
    indexing: int  # facts changed on disk still being indexed: not searched yet
    meaning: Literal["full", "static", "mixed", "words"]  # which tier of meaning served
    tiers: Tiers  # how many searched facts each tier judged
    reranked: bool  # the top was reordered by the reranker
    explain: dict[str, object] | None  # with explain=True: why, per result (the API's ExplainOut)


class Note(TypedDict):
    kind: Literal["workspace", "you", "me"]
    name: str
    title: str
    text: str
    updated: str | None


class Block(TypedDict):
    title: str
    scope: str
    facts: list[Fact]
    left_out: int


class Prompt(TypedDict):
    """The memory section for a system prompt: `text` is ready to paste."""

    text: str
    notes: list[Note]
    blocks: list[Block]
    stale: bool
    memory: Literal["ok", "unavailable"]
    partial: bool  # the budget ran out: the section as it stood when last built
    partial_reason: str
    indexing: int  # facts changed on disk still being indexed: maybe missing here
    digest: str  # send it back with report_exchange: its facts count as injected


class PromptChanges(TypedDict):
    added: list[str]
    removed: list[str]  # no longer in memory: forgotten, erased, expired or hidden
    left: list[str]  # still in memory, pushed out of the section's budget by others
    text: str


class ChangeEvent(TypedDict):
    """One change in the feed: `id` is its number, the same in every webhook delivery."""

    id: int
    type: str  # add, edit, supersede, forget, erase, restore
    fact_id: str
    text: str | None  # None once the fact was erased
    old_text: str | None
    old_fact_id: str | None
    erased: bool
    scope: str  # kind:name, e.g. project:apollo
    shard_bot: str
    by: str
    via: str
    at: str


class Changes(TypedDict):
    """Changes after a cursor: send `cursor` as `since` next time; `more`: ask again at once."""

    events: list[ChangeEvent]
    cursor: int
    more: bool


class Copy(TypedDict):
    """Where one copy of a fact is."""

    id: str
    scope: Scope
    scope_name: str
    bot: str
    file: str


class ListedFact(Fact):
    """A fact in a list: one row per fact and scope, naming its other copies."""

    also_in: list[Copy]


class Removed(Copy):
    line: str


class Erased(TypedDict):
    history: int
    embeddings: int
    records: int


class Feedback(TypedDict):
    """What a feedback did: the fact as it reads now (`meta` holds `checked`, `mark`, `review`)
    and how many copies were marked."""

    verb: FeedbackVerb
    fact: Fact
    copies: int


class Forgetting(TypedDict):
    """What a forget removed, and the copies in other bots' shards it could not touch."""

    forgotten: int
    removed: list[Removed]
    remaining: list[Copy]
    erased: Erased | None


class Remembered(TypedDict):
    """One thing the person's own message asked to be remembered ("remember that…"), kept at
    once whatever the learning mode: saved, held for review, or refused by the content rules."""

    text: str
    status: Literal["saved", "held", "refused"]
    fact_id: str
    scope: str
    reason: str
    detail: str


class Sources(TypedDict):
    """Which memories a reported exchange recorded as shaping the reply, per role."""

    retrieved: int  # recall returned them to this bot in this room just before
    injected: int  # in the prompt section the reply was built with
    cited: int  # named in `recalled`
    digest: str  # the section counted as injected (given, or the last served)
    note: str  # why nothing counts as injected when a digest was given


class ExchangeReceipt(TypedDict):
    id: str
    status: Literal["queued", "skipped", "done", "failed"]
    reason: str
    repeated: bool
    detail: str
    remembered: list[Remembered]
    sources: Sources | None
