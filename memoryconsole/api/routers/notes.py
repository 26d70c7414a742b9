"""Always-on notes for bots: read the notes this room's prompt opens with, and read,
write and list the versions of the bot's own "About me". The workspace note and the people's
"About you" notes are written in the console only.

The request and version shapes live here with the router: they are used by nothing else.
"""

from django.http import HttpRequest
from ninja import Header, Router

from memoryconsole.api.auth import context_of
from memoryconsole.api.errors import errors
from memoryconsole.api.schemas import ContextHeaders, NoteOut
from memoryconsole.api.schemas.notes import NoteIn, NoteVersionOut
from memstore.calls.notes import note_read, note_save, note_versions, notes_for

router = Router(tags=["notes"])


@router.get(
    "/notes",
    response={200: list[NoteOut], **errors(401, 403, 409, 422)},
    operation_id="list_notes",
    url_name="list_notes",
)
def list_notes(request: HttpRequest, room: Header[ContextHeaders]):
    """The always-on notes this room's prompt opens with: About this workspace, your About me,
    and About you of the person (direct rooms only). Notes never written are left out."""
    ctx = context_of(request, room)
    notes = notes_for(bot=ctx.bot, person=ctx.person, direct=ctx.room.kind == "direct")
    return [NoteOut.of(n) for n in notes]


@router.get(
    "/notes/me",
    response={200: NoteOut, **errors(401)},
    operation_id="read_about_me",
    url_name="about_me",
)
def read_about_me(request: HttpRequest):
    """Your own "About me" note (empty text if never written)."""
    return NoteOut.of(note_read(kind="me", name=request.auth.bot))  # type: ignore[attr-defined]


@router.put(
    "/notes/me",
    response={200: NoteOut, **errors(400, 401, 409, 413, 422)},
    operation_id="write_about_me",
    url_name="write_about_me",
)
def write_about_me(request: HttpRequest, body: NoteIn):
    """Replace your "About me" note; the text it replaces is kept as a version. Over 1,500
    characters or holding a secret: 422 `invalid_note`, nothing saved."""
    note = note_save(
        kind="me",
        name=request.auth.bot,  # type: ignore[attr-defined]
        text=body.text,
        expected=body.expected_text,
    )
    return NoteOut.of(note)


@router.get(
    "/notes/me/versions",
    response={200: list[NoteVersionOut], **errors(401)},
    operation_id="about_me_versions",
    url_name="about_me_versions",
)
def about_me_versions(request: HttpRequest):
    """Earlier texts of your "About me" note, newest first."""
    versions = note_versions(kind="me", name=request.auth.bot)  # type: ignore[attr-defined]
    return [NoteVersionOut(id=v.id, saved=v.saved, text=v.text) for v in versions]
