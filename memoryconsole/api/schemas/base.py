"""What every request and response shape builds on: strict inputs, plain outputs, storable
strings, the name patterns and the room headers."""

import datetime as dt
from typing import Annotated

from ninja import Field, Path, Schema
from pydantic import AfterValidator, BaseModel, ConfigDict

from memstore.calls.context import MAX_PROJECTS
from memstore.calls.facts import day_check
from memstore.errors import InvalidFact
from memstore.vocabulary import (
    FACT_ID_PATTERN,
    MESSAGE_ID_PATTERN,
    PERSON_PATTERN,
    ROOM_PATTERN,
    SLUG_PATTERN,
    RoomKind,
    anchored,
)

SLUG = anchored(SLUG_PATTERN)
FACT_ID = anchored(FACT_ID_PATTERN)
# A fact's id as a path parameter (`/facts/{fact_id}`).
FactId = Path(..., pattern=FACT_ID, description="The fact's id (16 hex digits).")
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


def not_blank(value: str) -> str:
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
        description="The person the bot is talking with, as registered (any case). Required in "
        "direct rooms; when named, they must be registered and linked to the bot.",
    )
    projects: str = Field(
        "",
        alias="X-Projects",
        pattern=_PROJECT_LIST,
        description=f"Up to {MAX_PROJECTS} comma-separated project slugs in play; the bot must "
        "have joined them.",
    )
    private: bool | None = Field(
        None,
        alias="X-Room-Private",
        description="true: this group room is a private conversation (a private channel), so "
        "what is saved here by default belongs to it: read only here, by the bots talking in "
        "it. A group DM of three or more is a shared working space: leave it unset. Fixed by "
        "the room's first answered call (later calls need not repeat it); a later call saying "
        "otherwise (true on a shared room, false on a private one) is refused with 409.",
    )
    ticket: str = Field(
        "",
        alias="X-Room-Ticket",
        # No pattern here: whatever is sent, a ticket that is not one is 401 ticket_invalid
        # (memstore.rooms.tickets decides), as over MCP.
        description="A room ticket signed by the chat platform (`v1.<expires>.<signature>`); "
        "required on every call when the server sets ROOM_TICKET_KEY, ignored otherwise; "
        "anything else is refused as ticket_invalid.",
    )

    @property
    def project_list(self) -> list[str]:
        return [p.strip() for p in self.projects.split(",") if p.strip()]


def check_project(scope: str | None, project: str | None) -> None:
    """A project is named exactly when the scope is project."""
    if scope == "project" and not project:
        raise ValueError("name the project when scope is project")
    if scope != "project" and project:
        raise ValueError("project is only used with scope=project")


def _sane_day(day: dt.date) -> dt.date:
    try:
        return day_check(day, what="the day asked about")
    except InvalidFact as error:
        raise ValueError(error.message) from None


# A day a read asks about (as_of): within the same range a fact's date must be in.
Day = Annotated[dt.date, AfterValidator(_sane_day)]
