"""What readers find and what an import run reports: `Item` (a fact to save, with where it came
from), `Skipped` (a line not turned into a fact, and why), the declarations a source makes about
who exists (`Agent`, `Join`, `Person`) and the links it draws (`Relation`), and `ImportReport`.

Readers (one module per format) only read; `memstore.imports.run` decides and writes. Every
saved line carries `src=<file>:<line>` (a line that names its own `src` keeps it) and
`via=import`; a Memory Console export (a folder with `facts.jsonl`) is restored verbatim, each
line with the metadata it was exported with, so an export -> import round trip gives the same
files.
"""

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from memstore.errors import InvalidName
from memstore.vocabulary import ScopeKind, Tier

MAX_SRC_CHARS = 200


@dataclass(frozen=True, slots=True)
class Target:
    """What the command line says: the bot that saves facts (None when the source names its own
    bots, as OpenTeam does), where facts without a scope of their own go (--project, else
    --person's user memory, else the bot's own) and the mappings given."""

    bot: str | None = None
    person: str | None = None
    project: str | None = None
    people: dict[str, str] = field(default_factory=dict, hash=False)  # source user id -> person
    agents: dict[str, str] = field(default_factory=dict, hash=False)  # source agent id -> bot
    projects: dict[str, str] = field(default_factory=dict, hash=False)  # source project -> slug

    @property
    def scope(self) -> ScopeKind:
        if self.project:
            return "project"
        return "user" if self.person else "bot"


@dataclass(frozen=True, slots=True)
class Options:
    """What an import may do besides saving facts: nothing, unless asked."""

    dry_run: bool = False
    create_bots: bool = False
    create_people: bool = False
    create_projects: bool = False


@dataclass(frozen=True, slots=True)
class Item:
    """One fact a reader found: its text, the bot that writes it, where it goes, and the file
    and line it came from. `key` names the note it belongs to, for relations."""

    text: str
    src: str
    bot: str
    scope: ScopeKind = "bot"
    tier: Tier = "log"
    day: date | None = None
    person: str | None = None
    project: str | None = None
    room: str | None = None
    meta: dict[str, str] = field(default_factory=dict, hash=False)
    key: str | None = None
    verbatim: bool = False  # a Memory Console export's line: its metadata is kept as it is
    raw: str = ""  # the source line as read, before its tags were cleaned into metadata


@dataclass(frozen=True, slots=True)
class Skipped:
    """A line a reader did not turn into a fact, and why."""

    src: str
    reason: str


@dataclass(frozen=True, slots=True)
class Agent:
    """A bot the source defines (an OpenTeam agent folder): created only with --create-bots."""

    bot: str
    name: str
    src: str
    origin: str = ""  # the source's own id for it (an OpenTeam agent's UUID)


@dataclass(frozen=True, slots=True)
class Join:
    """A project a source says a bot belongs to (OpenTeam's projects.json): joined only with
    --create-projects."""

    bot: str
    project: str
    src: str


@dataclass(frozen=True, slots=True)
class Relation:
    """`source` --kind--> `target` between two notes (keys of items): the first fact of each
    note is linked to the first fact of the other."""

    src: str
    source: str
    kind: str
    target: str


Found = Item | Skipped | Agent | Join | Relation


@dataclass
class ImportReport:
    """What an import did: facts saved, already there, refused (with the write path's reason),
    lines skipped by the reader (with theirs), links drawn, and what was created or joined."""

    imported: int = 0
    existing: int = 0
    linked: int = 0
    refused: list[Skipped] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    dry_run: bool = False

    def lines(self, *, examples: int = 3) -> list[str]:
        """A summary for a person: counts, what was created, then each reason with a few
        example sources."""
        verb = "Would import" if self.dry_run else "Imported"
        head = (
            f"{verb} {self.imported} facts; {self.existing} already there; "
            f"{len(self.refused)} refused; {len(self.skipped)} lines skipped."
        )
        if self.linked:
            head = head[:-1] + f"; {self.linked} links."
        out = [head, *(f"  {line}" for line in self.created)]
        for title, rows in (("refused", self.refused), ("skipped", self.skipped)):
            by_reason = Counter(r.reason for r in rows)
            for reason, count in sorted(by_reason.items(), key=lambda kv: (-kv[1], kv[0])):
                where = [r.src for r in rows if r.reason == reason][:examples]
                out.append(f"  {title} {count}: {reason} (e.g. {', '.join(where)})")
        return out


def item_for(target: Target, *, scope: ScopeKind | None = None, **fields) -> Item:
    """An item written by the import's --bot, bound for `scope` (default: --project, else
    --person's user memory, else the bot's own)."""
    scope = scope or target.scope
    return Item(
        bot=target.bot or "",
        scope=scope,
        person=target.person if scope == "user" else None,
        project=target.project if scope == "project" else None,
        **fields,
    )


def source(path: Path, root: Path, line: int) -> str:
    """`<file>:<line>` relative to the import root, as one metadata value (no spaces)."""
    rel = path.name if path == root or not path.is_relative_to(root) else None
    rel = rel or path.relative_to(root).as_posix()
    value = f"{re.sub(r'[\s<>]+', '_', rel).replace('--', '-')}:{line}"
    return value[-MAX_SRC_CHARS:]


def file_day(path: Path) -> date:
    """The day a file was last changed: the date of facts that don't state one."""
    return date.fromtimestamp(path.lstat().st_mtime)


def meta_value(value: object) -> str:
    """A source's field as one metadata value: no spaces or comment markers, at most 200."""
    return re.sub(r"[^\w.,:/@+-]+", "_", str(value)).strip("_")[:200]


def is_valid(check: Callable[[str], object], value: str) -> bool:
    """Whether a name passes one of `memstore.facts.paths`' checks (check_slug, check_person…)."""
    try:
        check(value)
    except InvalidName:
        return False
    return bool(value)


def slug_of(name: str) -> str:
    """A bot or project slug made from a display name ("Research Bot" -> "research-bot");
    '' when nothing usable is left."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug[:63].rstrip("-")
