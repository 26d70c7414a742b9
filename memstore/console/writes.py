"""The console's writes: as the person (`by=<username>`, `via=console`), only in scopes they may
see and only in bots they may edit (staff, or editors staff named: `Viewer.check_editor`),
through the ordinary services (lock, atomic write, history, re-sync).

A refused write (a secret in shared memory, text too long…) is recorded in the failure log so it
shows on the home page; a conflict with a concurrent hand edit is not a failure, it is shown.
"""

from dataclasses import dataclass

from memstore.activity import change_at, shard_history_page
from memstore.console.facts import FactRow, bot_tabs, shard_of_file
from memstore.console.viewer import Viewer
from memstore.errors import EditConflict, FactNotFound, InvalidFact, MemstoreError, NotAllowed
from memstore.failures import failure_record
from memstore.index import memory_root
from memstore.markdown import parse_line
from memstore.paths import Scope, Shard, check_slug
from memstore.records import StoredFact
from memstore.services import fact_edit, fact_forget, fact_restore, memory_clear

_UNDO_WINDOW = 200  # removals searched back through for an undo


def console_fact_edit(
    *, viewer: Viewer, file: str, fact_id: str, text: str, expected_text: str
) -> FactRow:
    """Replace a fact's text in place; EditConflict (with the current text) if it changed."""
    shard = shard_of_file(viewer, file)
    viewer.check_editor(shard.bot)
    try:
        stored = fact_edit(
            shard=shard,
            fact_id=fact_id,
            text=text,
            expected_text=expected_text,
            by=viewer.person,
            via="console",
        )
    except EditConflict:
        raise
    except MemstoreError as error:
        _record(shard, "edit", error, viewer)
        raise
    return FactRow(fact=stored, key=stored.fact_id, by=viewer.person, via="console")


@dataclass(frozen=True, slots=True)
class Removal:
    """A fact the person just removed: enough to show it and to undo it."""

    file: str
    fact_id: str
    text: str
    copies: int


def console_fact_forget(*, viewer: Viewer, file: str, fact_id: str) -> Removal:
    """Remove a fact from the shard holding this file (every copy in that shard)."""
    shard = shard_of_file(viewer, file)
    viewer.check_editor(shard.bot)
    changes = fact_forget(shards=[shard], fact_id=fact_id, by=viewer.person, via="console")
    fact = parse_line(changes[0].line)
    text = fact.body if fact else changes[0].line
    return Removal(file=file, fact_id=fact_id, text=text, copies=len(changes))


def console_fact_undo(*, viewer: Viewer, file: str, fact_id: str) -> FactRow:
    """Put back the newest removal of this fact in the file's shard (from every file it left);
    the row of the first copy put back."""
    shard = shard_of_file(viewer, file)
    viewer.check_editor(shard.bot)
    page = shard_history_page(
        root=memory_root(), shard=shard, limit=_UNDO_WINDOW, removed_only=True
    )
    removals = [item.change for item in page.items if item.change.fact_id == fact_id]
    if not removals:
        raise FactNotFound("There is no recorded removal of that fact to undo.")
    newest = [c for c in removals if c.at == removals[0].at]
    restored = [fact_restore(change=c, by=viewer.person, via="console") for c in newest]
    return FactRow(fact=restored[0], key=restored[0].fact_id, by=viewer.person, via="console")


def console_fact_restore(*, viewer: Viewer, shard: Shard, offset: int) -> StoredFact:
    """Restore the fact removed by the change at this byte offset of a shard's history."""
    if not viewer.may_see(shard.scope):
        raise NotAllowed("That is another person's user memory.")
    viewer.check_editor(shard.bot)
    change = change_at(root=memory_root(), shard=shard, offset=offset)
    if change is None or change.op != "remove":
        raise InvalidFact("That history entry is not a removal that can be restored.")
    return fact_restore(change=change, by=viewer.person, via="console")


@dataclass(frozen=True, slots=True)
class ClearPreview:
    """What clearing a bot's own memory removes, and the shared memory it wrote that stays."""

    bot: str
    own: int
    people: int
    projects: int
    rooms: int


def clear_preview(*, bot: str, viewer: Viewer) -> ClearPreview:
    """The counts the clear confirmation shows (synced first)."""
    facts = {t.name: t.facts for t in bot_tabs(bot=bot, viewer=viewer)}
    return ClearPreview(bot=bot, **facts)


def console_memory_clear(*, viewer: Viewer, bot: str) -> int:
    """Remove every fact of a bot's own memory as this person; returns how many went."""
    check_slug(bot)
    viewer.check_editor(bot)
    return memory_clear(bot=bot, by=viewer.person, via="console")


def shard_key(shard: Shard) -> str:
    """A shard as one form value: "kind:name|bot"."""
    return f"{shard.scope}|{shard.bot}"


def shard_parse(value: str) -> Shard:
    """The shard named by a `shard_key` value (InvalidName if it names none)."""
    scope_key, _, bot = (value or "").partition("|")
    kind, _, name = scope_key.partition(":")
    return Scope(kind, name).shard(bot)  # type: ignore[arg-type]


def _record(shard: Shard, op: str, error: MemstoreError, viewer: Viewer) -> None:
    failure_record(
        root=memory_root(), bot=shard.bot, op=op, error=error, by=viewer.person, via="console"
    )
