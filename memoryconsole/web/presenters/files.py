"""How a bot's memory files show: their rows and the notes above one file.

Pure: no queries, no file I/O (as every presenter)."""

from dataclasses import dataclass

from memoryconsole.web.presenters.common import plural, scope_label
from memstore.console.files import FileInfo, FileView
from memstore.facts.markdown import MAX_TEXT_CHARS


def file_rows(files: list[FileInfo]) -> list[tuple[FileInfo, str]]:
    """Each file of a bot with its scope's label."""
    return [(f, scope_label(f.scope_key)) for f in files]


@dataclass(frozen=True, slots=True)
class FileNotes:
    """What the file view says about a file beyond its lines."""

    scope_label: str
    skipped: str  # "2 lines look like a fact but are not read as one", or ""
    too_long: str  # "1 fact is over the 500-character limit for a save", or ""


def file_notes(view: FileView) -> FileNotes:
    """The sentences above a file's lines."""
    skipped = too_long = ""
    if n := view.skipped:
        skipped = (
            f"{n} {plural(n, 'line looks', 'lines look')} like a fact but "
            f"{plural(n, 'is', 'are')} not read as one"
        )
    if n := view.too_long:
        too_long = (
            f"{n} {plural(n, 'fact is', 'facts are')} over the {MAX_TEXT_CHARS}-character "
            "limit for a save: indexed whole, but an edit must shorten it"
        )
    return FileNotes(scope_label(view.scope_key), skipped, too_long)
