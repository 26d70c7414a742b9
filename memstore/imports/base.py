"""Running an import: every item a reader found goes through the one write path a bot uses
(`memstore.calls.actions.bot_remember`), so secrets, excluded topics, length limits and who may write
where are decided exactly as for an API call, and a duplicate is not written twice.

Readers (one module per format) only turn a source into `Item`s (a fact to save, with where it
came from) and `Skipped` lines (with why); they never write. Every saved line carries
`via=import src=<file>:<line>`. A dry run applies the same checks (the target, the text, the
content rules, "already there") and writes nothing.
"""

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from django.utils import timezone

from memstore.calls.actions import bot_remember
from memstore.errors import MemstoreError
from memstore.facts.markdown import TAGS, make_fact
from memstore.models import Bot
from memstore.registry.people import person_add, person_link
from memstore.rooms.access import Context, writable_shard
from memstore.rooms.context import context_open
from memstore.rules.content import content_check
from memstore.store.selectors import fact_find
from memstore.vocabulary import Tier, WritableScopeKind

IMPORT_ROOM = "import"
MAX_SRC_CHARS = 200


@dataclass(frozen=True, slots=True)
class Target:
    """Where facts without a scope of their own go: the --person or --project given, else the
    bot's own memory."""

    bot: str
    person: str | None = None
    project: str | None = None
    people: dict[str, str] = field(default_factory=dict, hash=False)  # source user id -> person

    @property
    def scope(self) -> WritableScopeKind:
        if self.project:
            return "project"
        return "user" if self.person else "bot"


@dataclass(frozen=True, slots=True)
class Item:
    """One fact a reader found: its text, where it goes, and the file and line it came from."""

    text: str
    src: str
    scope: WritableScopeKind = "bot"
    tier: Tier = "log"
    day: date | None = None
    person: str | None = None
    project: str | None = None
    meta: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Skipped:
    """A line a reader did not turn into a fact, and why."""

    src: str
    reason: str


@dataclass
class ImportReport:
    """What an import did: facts saved, already there, refused (with the write path's reason)
    and lines skipped by the reader (with theirs)."""

    imported: int = 0
    existing: int = 0
    refused: list[Skipped] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    dry_run: bool = False

    def lines(self, *, examples: int = 3) -> list[str]:
        """A summary for a person: counts, then each reason with a few example sources."""
        verb = "Would import" if self.dry_run else "Imported"
        out = [
            f"{verb} {self.imported} facts; {self.existing} already there; "
            f"{len(self.refused)} refused; {len(self.skipped)} lines skipped."
        ]
        for title, rows in (("refused", self.refused), ("skipped", self.skipped)):
            by_reason = Counter(r.reason for r in rows)
            for reason, count in by_reason.most_common():
                where = [r.src for r in rows if r.reason == reason][:examples]
                out.append(f"  {title} {count}: {reason} (e.g. {', '.join(where)})")
        return out


def import_items(
    found: Iterable[Item | Skipped],
    *,
    bot: str,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Save every item through the bot's write path (or only count them, in a dry run)."""
    found = list(found)
    report = ImportReport(dry_run=dry_run)
    contexts: dict[tuple, Context] = {}
    for done, entry in enumerate(found, start=1):
        if isinstance(entry, Skipped):
            report.skipped.append(entry)
        else:
            _save(entry, bot=bot, dry_run=dry_run, contexts=contexts, report=report)
        if progress:
            progress(done, len(found))
    return report


def _save(
    item: Item, *, bot: str, dry_run: bool, contexts: dict[tuple, Context], report: ImportReport
) -> None:
    meta: dict[str, object] = {**item.meta, "src": item.src, "via": "import"}
    try:
        ctx = _context(bot, item, contexts)
        if dry_run:
            existed = _would_exist(ctx, item, meta)
        else:
            existed = bot_remember(
                ctx=ctx,
                text=item.text,
                scope=item.scope,
                project=item.project,
                tier=item.tier,
                meta=meta,
                via="import",
                day=item.day,
            ).existed
    except MemstoreError as exc:
        report.refused.append(Skipped(item.src, f"{exc.code}: {exc.message}"))
        return
    if existed:
        report.existing += 1
    else:
        report.imported += 1


def _would_exist(ctx: Context, item: Item, meta: dict[str, object]) -> bool:
    """A dry run: the checks the write applies (target, text, content rules), then whether the
    scope holds the fact already; raises what the write would raise, writes nothing."""
    shard = writable_shard(ctx, item.scope, item.project)
    tag = item.tier if item.tier in TAGS else None
    fact = make_fact(text=item.text, day=item.day or timezone.localdate(), tag=tag, meta=meta)
    content_check(shard=shard, fact=fact, person=ctx.person, via="import")
    return bool(fact_find(scopes=[shard.scope], fact_id=fact.identity))


def _context(bot: str, item: Item, contexts: dict[tuple, Context]) -> Context:
    # An import acts as the bot in a room of its own: a direct room with the person for user
    # memory, a routine room with the project in play for project memory. It is staff's
    # command, not a bot's call (no ticket, no room binding); it registers the people it
    # imports memory about and links them to the bot (the people registry's importer).
    key = (item.scope, item.person, item.project)
    if key not in contexts:
        person = None
        if item.scope == "user" and item.person:
            person = person_add(name=item.person, exist_ok=True).name
            if Bot.objects.filter(slug=bot).exists():
                person_link(person=person, bot=bot)
        contexts[key] = context_open(
            bot=bot,
            room_id=IMPORT_ROOM,
            room_kind="direct" if item.scope == "user" else "routine",
            person=person,
            projects=[item.project] if item.project else [],
        )
    return contexts[key]


def source(path: Path, root: Path, line: int) -> str:
    """`<file>:<line>` relative to the import root, as one metadata value (no spaces)."""
    rel = path.name if path == root else path.relative_to(root).as_posix()
    value = f"{re.sub(r'[\s<>]+', '_', rel).replace('--', '-')}:{line}"
    return value[-MAX_SRC_CHARS:]


def file_day(path: Path) -> date:
    """The day a file was last changed: the date of facts that don't state one."""
    return date.fromtimestamp(path.stat().st_mtime)


def item_for(target: Target, **fields) -> Item:
    """An item bound for the import's target (--project, --person, or the bot's own memory)."""
    return Item(scope=target.scope, person=target.person, project=target.project, **fields)
