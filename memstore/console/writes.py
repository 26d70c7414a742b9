"""The console's writes: as the person (`by=<username>`, `via=console`), only in scopes they may
see and only in bots they may edit (staff, or editors staff named: `Viewer.check_editor`;
an erase reaches as far as `erase_reach` says), through the ordinary services (lock, atomic
write, history, re-sync).

A refused write (a secret in shared memory, text too long…) is recorded in the failure log by the
services themselves, so it shows on the home page; a conflict with a concurrent hand edit is not
a failure, it is shown.
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from memstore.console.facts import FactRow, bot_tabs, console_fact_get, rows_of, shard_of_file
from memstore.console.viewer import Viewer
from memstore.errors import FactNotFound, InvalidFact, NotAllowed
from memstore.facts.activity import change_at, shard_history_page
from memstore.facts.history import history_read
from memstore.facts.markdown import parse_line
from memstore.facts.paths import Shard, check_slug, memory_root
from memstore.facts.records import StoredFact
from memstore.privacy.erase import (
    Reach,
    fact_erase,
    reach_of_bot,
    reach_of_person,
    reach_of_workspace,
)
from memstore.store.services import (
    fact_edit,
    fact_forget,
    fact_restore,
    facts_put_back,
    memory_clear,
)

_UNDO_WINDOW = 200  # removals searched back through for an undo
UNDO_CLEAR_WINDOW = timedelta(minutes=30)  # how long "Undo clear" is offered


def console_fact_edit(
    *, viewer: Viewer, file: str, fact_id: str, text: str, expected_text: str
) -> FactRow:
    """Replace a fact's text in place; EditConflict (with the current text) if it changed."""
    shard = shard_of_file(viewer, file)
    viewer.check_editor(shard.bot)
    stored = edit_as(viewer, shard, fact_id=fact_id, text=text, expected_text=expected_text)
    return rows_of([stored], [stored.fact_id])[0]  # who wrote it as the line says


def edit_as(
    viewer: Viewer, shard: Shard, *, fact_id: str, text: str, expected_text: str
) -> StoredFact:
    """A console edit, written as the person (`by=<their name>`, `via=console`); the caller has
    checked they may change this shard."""
    return fact_edit(
        shard=shard,
        fact_id=fact_id,
        text=text,
        expected_text=expected_text,
        by=viewer.person,
        via="console",
    )


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


@dataclass(frozen=True, slots=True)
class Erased:
    """A fact the person just erased: what it said, how far the erase reached, what it did."""

    text: str
    reach: str  # everything | person | bot (`erase_reach`)
    bot: str
    copies: int
    history: int
    embeddings: int
    records: int


def erase_reach(*, viewer: Viewer, file: str) -> tuple[Reach, str]:
    """How far "Delete and erase" on this file's fact reaches, and which reach that is:
    "everything" for staff; "person", in the person's own user memory (every bot's shard of
    it); elsewhere "bot", every shard of the file's bot that the person may see."""
    return shard_erase_reach(viewer=viewer, shard=shard_of_file(viewer, file))


def shard_erase_reach(*, viewer: Viewer, shard: Shard) -> tuple[Reach, str]:
    """`erase_reach` for a fact of this shard (Health's "Erase everywhere" uses it too)."""
    if viewer.staff:
        return reach_of_workspace(), "everything"
    if shard.scope.kind == "user" and shard.scope.name == viewer.person:
        return reach_of_person(viewer.person), "person"
    mine = reach_of_bot(shard.bot)
    shards = tuple(s for s in mine.shards if viewer.may_see(s.scope))
    return Reach(shards=shards, bots=mine.bots), "bot"


def console_fact_erase(*, viewer: Viewer, file: str, fact_id: str) -> Erased:
    """Remove every copy of this file's fact within the person's reach (`erase_reach`) and leave
    no trace of its text there: history tombstoned, embedding dropped, records redacted."""
    row = console_fact_get(viewer=viewer, file=file, fact_id=fact_id)
    shard = shard_of_file(viewer, file)
    if not (shard.scope.kind == "user" and shard.scope.name == viewer.person):
        viewer.check_editor(shard.bot)  # a person may always erase what is known about them
    reach, kind = erase_reach(viewer=viewer, file=file)
    erasure = fact_erase(reach=reach, fact_id=fact_id, by=viewer.person, via="console")
    return Erased(
        text=row.fact.body,
        reach=kind,
        bot=row.fact.shard_bot,
        copies=len(erasure.removed),
        history=erasure.history,
        embeddings=erasure.embeddings,
        records=erasure.records,
    )


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
    return rows_of(restored[:1])[0]  # still by whoever wrote it


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
    workspace: int = 0  # what it keeps for the whole workspace (shared memory: stays too)
    private: int = 0  # in private conversations (only staff see them; they stay too)


def clear_preview(*, bot: str, viewer: Viewer) -> ClearPreview:
    """The counts the clear confirmation shows (synced first)."""
    facts = {t.name: t.facts for t in bot_tabs(bot=bot, viewer=viewer)}
    return ClearPreview(bot=bot, **facts)


@dataclass(frozen=True, slots=True)
class Cleared:
    """A clear just made: how many facts went, and the span of time its removals carry (what
    "Undo clear" puts back)."""

    bot: str
    removed: int
    since: str
    until: str


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")  # as the history stamps it


def console_memory_clear(*, viewer: Viewer, bot: str) -> Cleared:
    """Remove every fact of a bot's own memory as this person."""
    check_slug(bot)
    viewer.check_editor(bot)
    since = _now()
    removed = memory_clear(bot=bot, by=viewer.person, via="console")
    return Cleared(bot=bot, removed=removed, since=since, until=_now())


def clear_undo_open(since: str) -> bool:
    """Whether a clear made at `since` can still be undone in one step."""
    try:
        made = datetime.fromisoformat(since)
    except ValueError:
        return False
    return datetime.now(UTC) - made <= UNDO_CLEAR_WINDOW


def console_batch_undo(*, viewer: Viewer, shards: list[Shard], since: str, until: str) -> int:
    """Put back every fact this person removed in these shards between `since` and `until` (a
    clear, a bulk delete), each in its file at its line, with its date, metadata and author;
    returns how many."""
    if not clear_undo_open(since):
        raise NotAllowed(
            "A batch can be undone in one step for 30 minutes; restore facts from the history."
        )
    by_file: dict[str, list] = {}
    for shard in shards:
        if not viewer.may_see(shard.scope):
            raise NotAllowed("That is another person's user memory.")
        viewer.check_editor(shard.bot)
        for change in history_read(memory_root(), shard):
            if change.op != "remove" or not (since <= change.at <= until):
                continue
            if (change.by, change.via) != (viewer.person, "console"):
                continue
            fact = parse_line(change.line)
            if fact is not None:
                position = int(change.position) if change.position.isdigit() else None
                by_file.setdefault(change.file, []).append((position, fact))
    if not by_file:
        raise FactNotFound("There is nothing of yours to undo.")
    for rel, facts in by_file.items():
        facts_put_back(rel=rel, facts=facts, by=viewer.person, via="console")
    return sum(len(facts) for facts in by_file.values())


@dataclass(frozen=True, slots=True)
class Removed:
    """Facts just removed together: how many, the shards they left, and the span of time the
    removals carry (what an undo puts back)."""

    count: int
    shards: list[Shard]
    since: str
    until: str


def console_facts_forget(*, viewer: Viewer, refs: list[tuple[str, str]]) -> Removed:
    """Remove several facts (file, fact id), each from the shard holding its file."""
    shards = [shard_of_file(viewer, file) for file, _ in refs]
    for bot in {shard.bot for shard in shards}:
        viewer.check_editor(bot)
    since, count = _now(), 0
    for shard, (_, fact_id) in zip(shards, refs, strict=True):
        try:
            count += len(
                fact_forget(shards=[shard], fact_id=fact_id, by=viewer.person, via="console")
            )
        except FactNotFound:
            continue  # removed meanwhile (or a copy already went with an earlier one)
    return Removed(count=count, shards=list(dict.fromkeys(shards)), since=since, until=_now())
