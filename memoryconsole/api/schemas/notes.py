"""Request and response shapes of the notes endpoints (`memoryconsole.api.routers.notes`)."""

import datetime as dt

from ninja import Field

from memoryconsole.api.schemas import Out, StrictIn, Text


class NoteIn(StrictIn):
    text: Text = Field(max_length=20_000, description="The note (at most 1,500 characters).")
    expected_text: Text | None = Field(
        None,
        max_length=20_000,
        description="The text you last read: if the note changed since, nothing is saved (409).",
    )


class NoteVersionOut(Out):
    id: str = Field(description="The UTC time the text was replaced (its version id).")
    saved: dt.datetime
    text: str
