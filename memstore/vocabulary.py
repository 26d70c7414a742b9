"""The product's vocabulary, defined once: room kinds, scope kinds, tiers, fact types,
visibilities, how facts were saved, and the name rules for bots, projects, people and rooms.

Link kinds between facts live here too, and the one token estimate (about four characters a
token) wherever a size in tokens is shown or a model server leaves its count out.

Everything else (API schemas, console forms, the learner, the commands, `paths` and `access`)
derives its choices and patterns from here. Pure data: no I/O, no Django.
"""

from typing import Literal, get_args

RoomKind = Literal["direct", "group", "routine", "bot", "event"]
ROOM_KINDS: tuple[RoomKind, ...] = get_args(RoomKind)
LEARNABLE_ROOM_KINDS: tuple[RoomKind, ...] = ("direct", "group")

# server: the workspace's own memory, loaded into every conversation (data apps such as
# a CRM sync contribute, with a visibility and a weight per record); one scope, named
# SERVER_SCOPE_NAME, written only by apps.
ScopeKind = Literal["bot", "user", "project", "room", "server"]
SCOPE_KINDS: tuple[ScopeKind, ...] = get_args(ScopeKind)
WritableScopeKind = Literal["bot", "user", "project", "server"]
WRITABLE_SCOPE_KINDS: tuple[WritableScopeKind, ...] = get_args(WritableScopeKind)
SERVER_SCOPE_NAME = "workspace"
# `weight=` an app gives a workspace record (4-5 critical, 1-2 nice to have).
MIN_WEIGHT, MAX_WEIGHT = 0.1, 10.0

# What the memory health check can find wrong with a fact, most serious first (the order its
# report sorts by; memstore.upkeep.health decides each, the API lists them).
FindingKind = Literal[
    "secret",
    "instruction",
    "contradiction",
    "duplicate",
    "junk",
    "too_long",
    "marked",
    "review",
    "unverified",
    "unused",
]
FINDING_KINDS: tuple[FindingKind, ...] = get_args(FindingKind)

Tier = Literal["profile", "log", "note", "episode"]
TIERS: tuple[Tier, ...] = get_args(Tier)

FactType = Literal["fact", "preference", "decision", "learning", "context"]
FACT_TYPES: tuple[FactType, ...] = get_args(FactType)

# private: in a bot's own memory, used only in direct rooms (never in a group room's prompt or
# recall, even when the bot belongs to groups).
Visibility = Literal["context", "searchable", "hidden", "private"]
VISIBILITIES: tuple[Visibility, ...] = get_args(Visibility)
PRIVATE_ROOM_KINDS: tuple[RoomKind, ...] = ("direct",)  # where private facts may be used

# What a bot token (or an OAuth connection) may do: read memory, write it, or both; and how a
# bot belongs to a project: it reads the project's memory, or reads and writes it.
Grant = Literal["memory:read", "memory:write"]
GRANTS: tuple[Grant, ...] = get_args(Grant)
READ_GRANT, WRITE_GRANT = GRANTS
Membership = Literal["read", "read_write"]
MEMBERSHIPS: tuple[Membership, ...] = get_args(Membership)

# What a bot or a person says about a fact it used: `useful` (it is still true: the line gets
# `checked=`), `outdated` (a person should look), `wrong` and `do-not-use` (it leaves prompts and
# recall at once and goes to review). The last three are written as the line's `mark=`.
Feedback = Literal["useful", "outdated", "wrong", "do-not-use"]
FEEDBACKS: tuple[Feedback, ...] = get_args(Feedback)
MARKS: tuple[Feedback, ...] = ("outdated", "wrong", "do-not-use")
WITHDRAWN_MARKS: tuple[Feedback, ...] = ("wrong", "do-not-use")

# Always-on notes: "About this workspace", "About you" (one per person), "About me"
# (one per bot).
NoteKind = Literal["workspace", "you", "me"]
NOTE_KINDS: tuple[NoteKind, ...] = get_args(NoteKind)

Via = Literal["api", "console", "learner", "tool", "import", "synthesis", "upkeep", "hand-edit"]
VIAS: tuple[Via, ...] = get_args(Via)
# Facts a machine made on its own (`via=` in the line's metadata). Only these, and never a pinned
# one, may be changed or archived by upkeep and synthesis: a line without `via` (saved by a
# bot's API call, a tool, the console or a hand edit) was saved on purpose.
AUTOMATIC_VIAS: tuple[Via, ...] = ("learner", "synthesis")
# Edits a person makes through the product (the console's bot pages and About me): an automatic
# fact reworded this way becomes saved on purpose. (In a file edited by hand the person decides
# by keeping or deleting the `via=`.)
PERSON_EDIT_VIAS: tuple[Via, ...] = ("console",)

# Links between facts: `rel=<kind>:<fact id>` in the source fact's metadata.
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
LINK_KINDS: tuple[LinkKind, ...] = get_args(LinkKind)

# Name rules. Each pattern is written without anchors so it can be used inside larger
# patterns (lists in headers) as well as with fullmatch / an anchored schema pattern.
SLUG_PATTERN = r"[a-z0-9][a-z0-9-]{0,62}"
PERSON_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.@+-]{0,63}"
ROOM_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}"
MESSAGE_ID_PATTERN = ROOM_PATTERN
FACT_ID_PATTERN = r"[0-9a-f]{16}"

SLUG_RULE = "1-63 lower-case letters, digits and '-', starting with a letter or digit"
PERSON_RULE = "1-64 letters, digits and . _ @ + -, starting with a letter or digit"
ROOM_RULE = "1-64 letters, digits and . _ : -, starting with a letter or digit"


def anchored(pattern: str) -> str:
    """A name pattern anchored at both ends (for schemas and form validators)."""
    return f"^{pattern}$"


CHARS_PER_TOKEN = 4  # about four characters a token: English text in common tokenizers


def tokens_estimate(chars: int) -> int:
    """About how many tokens `chars` characters of text take (rounded up)."""
    return -(-chars // CHARS_PER_TOKEN)
