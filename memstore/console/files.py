"""A bot's memory files as files: which there are, and one file line by line.

Files are the truth, so people can look at them as they are: prose and headings kept, and lines
that look like a fact but are not read as one (an impossible date, a missing bracket) pointed
out, since the index skips them silently; so are facts written by hand over MAX_TEXT_CHARS,
which are indexed whole but could not be saved as they are (an edit must shorten them). Reading
is bounded (MAX_LINES) and never writes.
"""

import re
from dataclasses import dataclass

from memstore.console.facts import shard_of_file
from memstore.console.overview import bot_shards
from memstore.console.viewer import Viewer
from memstore.facts.markdown import MAX_TEXT_CHARS, parse_text
from memstore.facts.paths import memory_root
from memstore.index import index_sync
from memstore.models import MemoryFile

MAX_LINES = 5000
# A dated list item that the fact grammar did not accept: worth a person's look.
_NEAR_MISS_RE = re.compile(r"\s*[-*+]\s*\(?\s*\d{4}[-/.]\d{1,2}[-/.]\d{1,2}")


@dataclass(frozen=True, slots=True)
class FileInfo:
    """One memory file of a bot, as last synced."""

    path: str
    scope_key: str
    facts: int
    size: int
    error: str


def bot_files(*, bot: str, viewer: Viewer) -> list[FileInfo]:
    """Every memory file in the shards this bot writes that the person may see (synced)."""
    shards = bot_shards(bot=bot, viewer=viewer)
    scopes = list(dict.fromkeys(s.scope for s in shards))
    index_sync(scopes=scopes)
    rows = (
        MemoryFile.objects.filter(scope_key__in=[str(s) for s in scopes], shard_bot=bot)
        .order_by("scope_key", "path")
        .values_list("path", "scope_key", "fact_count", "size", "error")
    )
    return [FileInfo(p, k, n, size, e) for p, k, n, size, e in rows]


@dataclass(frozen=True, slots=True)
class FileLine:
    """One line of a file: its number, its text, and how the index read it."""

    number: int
    text: str
    kind: str  # fact | text | skipped (looks like a fact, is not one)
    too_long: bool = False  # a fact over MAX_TEXT_CHARS: a save of it as it is would be refused


@dataclass(frozen=True, slots=True)
class FileView:
    """A file's lines (up to MAX_LINES), how many looked like facts but were skipped, and how
    many facts are too long for a save."""

    path: str
    scope_key: str
    lines: list[FileLine]
    facts: int
    skipped: int
    too_long: int
    truncated: bool


def file_view(*, viewer: Viewer, path: str) -> FileView:
    """Read one memory file for display (NotAllowed outside what the person may see)."""
    shard = shard_of_file(viewer, path)
    try:
        data = (memory_root() / path).read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        data = b""
    lines = []
    for number, line in enumerate(parse_text(data.decode("utf-8", errors="replace")), start=1):
        text = line.raw.rstrip("\r\n")
        if line.fact is not None:
            too_long = len(line.fact.text) > MAX_TEXT_CHARS
            lines.append(FileLine(number, text, "fact", too_long))
            continue
        lines.append(FileLine(number, text, "skipped" if _NEAR_MISS_RE.match(text) else "text"))
    return FileView(
        path=path,
        scope_key=str(shard.scope),
        lines=lines[:MAX_LINES],
        facts=sum(1 for line in lines if line.kind == "fact"),
        skipped=sum(1 for line in lines if line.kind == "skipped"),
        too_long=sum(1 for line in lines if line.too_long),
        truncated=len(lines) > MAX_LINES,
    )
