"""The always-on notes in the console, with who may read and write each:

- About this workspace: everyone reads it; staff edit it.
- About you: the person reads and writes their own; staff may open anyone's.
- About me (a bot's): everyone reads it; staff edit it (the bot edits it through the API).

The notes themselves (files, versions, limits) are `memstore.prompt.notes`; this module only applies
the rules above for a `Viewer` and returns what a page shows.
"""

from dataclasses import dataclass

from memstore.console.viewer import Viewer
from memstore.errors import NotAllowed
from memstore.prompt.notes import (
    Note,
    NoteVersion,
    note_read,
    note_restore,
    note_save,
    note_versions,
)
from memstore.vocabulary import NoteKind


@dataclass(frozen=True, slots=True)
class NoteView:
    """A note as its page shows it: the note, its versions, and whether the viewer may edit."""

    note: Note
    versions: list[NoteVersion]
    editable: bool


def _may_read(viewer: Viewer, kind: NoteKind, name: str) -> bool:
    return kind != "you" or viewer.staff or name == viewer.person


def _may_write(viewer: Viewer, kind: NoteKind, name: str) -> bool:
    return viewer.staff or (kind == "you" and name == viewer.person)


def _check(viewer: Viewer, kind: NoteKind, name: str, *, write: bool) -> None:
    if not _may_read(viewer, kind, name):
        raise NotAllowed("Only that person (or staff) may open their About you note.")
    if write and not _may_write(viewer, kind, name):
        who = "the person it is about" if kind == "you" else "staff"
        raise NotAllowed(f"Only {who} may change this note.")


def console_note(*, viewer: Viewer, kind: NoteKind, name: str = "") -> NoteView:
    """The note, its versions (newest first) and whether this viewer may change it."""
    _check(viewer, kind, name, write=False)
    return NoteView(
        note=note_read(kind=kind, name=name),
        versions=note_versions(kind=kind, name=name),
        editable=_may_write(viewer, kind, name),
    )


def console_note_save(
    *, viewer: Viewer, kind: NoteKind, name: str = "", text: str, expected: str | None
) -> Note:
    """Save the note's new text (the old one becomes a version); a stale form gets a conflict."""
    _check(viewer, kind, name, write=True)
    return note_save(kind=kind, name=name, text=text, expected=expected)


def console_note_restore(*, viewer: Viewer, kind: NoteKind, name: str = "", version: str) -> Note:
    """Make an earlier version the note's text again."""
    _check(viewer, kind, name, write=True)
    return note_restore(kind=kind, name=name, version=version)
