"""Writes: remember, forget, edit, restore and clear. Every one follows the same path:

    bot lock -> read the file -> apply -> atomic replace (retry if edited meanwhile)
             -> append to the shard's history -> re-sync that file into the index

(`memstore.store.rewrite.file_rewrite`, from "read the file" on). Remember, edit and forget take
the lock in the statement that reads what the index holds of the scope (`memstore.store.prewrite`):
with the index in step with the files, a save is that statement, its file, one statement for
its index rows and the unlock.

Callers pass the shard to write; deciding whether a room may write it is `memstore.rooms.access`.
The content rules (secrets, instructions, excluded topics, paused memory: the one gate,
`memstore.rules.content`) are checked here, inside every write that adds text, every refusal is
recorded in the failure log (`memstore.rules.failures.refusals_recorded`) and every held save in
the review inbox (`memstore.store.held`), so no front door can forget any of them.
"""

from collections.abc import Callable
from dataclasses import replace
from datetime import date
from functools import partial

from django.utils import timezone

from memstore.errors import EditConflict, FactNotFound, InvalidFact, UnreadableFile
from memstore.facts import markdown
from memstore.facts.history import Change
from memstore.facts.locks import bot_lock
from memstore.facts.markdown import FactLine, Line
from memstore.facts.paths import Scope, Shard, locate, memory_root, shard_files
from memstore.facts.ranking import Tier
from memstore.facts.records import StoredFact, stored_of_line
from memstore.rules.content import content_check, content_people
from memstore.rules.failures import refusals_recorded
from memstore.store.changes import (
    change_of,
    fact_claimed,
    fact_identities,
    fact_with_changes,
    files_holding_first,
    meta_authored,
    stuck_error,
    unreadable_holds,
)
from memstore.store.held import held_recorded
from memstore.store.prewrite import prewrite_parse, prewrite_reading
from memstore.store.repeats import repeats_recorded
from memstore.store.rewrite import MAX_ATTEMPTS, Edit, file_rewrite
from memstore.store.selectors import fact_find

__all__ = [
    "MAX_ATTEMPTS",
    "Edit",
    "fact_edit",
    "fact_forget",
    "fact_remember",
    "fact_restore",
    "facts_put_back",
    "file_rewrite",
    "memory_clear",
]

_TIER_TAGS: dict[str, str | None] = {
    "profile": None,
    "log": None,
    "note": "note",
    "episode": "episode",
}
_HEADERS = {"profile": "# Profile", "log": "# Memory log"}


@refusals_recorded("remember")
@held_recorded
@repeats_recorded
def fact_remember(
    *,
    shard: Shard,
    text: str,
    tier: Tier = "log",
    day: date | None = None,
    meta: dict[str, object] | None = None,
    person: str | None = None,
    by: str = "",
    via: str = "api",
    acting: str | None = None,
) -> StoredFact:
    """Save a fact in a shard's profile or log, after the content rules (`memstore.rules.content`;
    `person`: the person in the room, whose excluded topics apply to any scope; `acting`: who
    acted through the bot). The line says who saved it (`changes.meta_authored`).

    A fact whose identity the scope already holds (any file, any shard) is not written again:
    the stored copy comes back with `existed=True`. Raises UnreadableFile if the target file
    is not UTF-8."""
    if tier not in _TIER_TAGS:
        raise InvalidFact(f"Tier must be one of {', '.join(_TIER_TAGS)}, not {tier!r}.")
    meta = meta_authored(meta, by=by, via=via, acting=acting)
    fact = markdown.make_fact(
        text=text, day=day or timezone.localdate(), tag=_TIER_TAGS[tier], meta=meta
    )
    tier_file = "profile" if tier == "profile" else "log"
    rel = shard.file_rel(tier_file=tier_file, day=fact.day)
    kept: list[tuple[FactLine, int]] = []
    add = partial(_added_once, rel=rel, fact=fact, kept=kept)
    people = content_people(shard=shard, person=person)
    reading = prewrite_reading(scope=shard.scope, fact_ids=[fact.identity], people=people)
    # One statement takes the lock and reads the duplicate check, the file rows and the
    # controls; with the index in step with every file of the scope, nothing more is read.
    with bot_lock(shard.bot, reading=reading) as row:
        state = prewrite_parse(row, scope=shard.scope, people=people)
        content_check(
            shard=shard, fact=fact, person=person, via=via, controls=state.controls, by=by
        )
        behind = state.behind(memory_root(), shard, scope_wide=True)
        if not behind.files:
            if state.copies:
                return _newest(state.copies)
            added = file_rewrite(
                rel,
                add,
                header=_HEADERS[tier_file],
                by=by,
                via=via,
                indexed=state.files.get(rel),
                restat=behind.restat,
            )
            return stored_of_line(rel, kept[0][0], position=kept[0][1], existed=not added)
    # A file of the scope changed since the index read it (a hand edit, another bot's write in
    # progress): sync the scope and look again as a read would, without holding the lock (a
    # sync takes the lock of each file's bot), then write as every other write does.
    if held := _held(shard.scope, fact.identity):
        return held
    with bot_lock(shard.bot):
        added = file_rewrite(rel, add, header=_HEADERS[tier_file], by=by, via=via)
    return stored_of_line(rel, kept[0][0], position=kept[0][1], existed=not added)


def _added_once(
    lines: list[Line], *, rel: str, fact: FactLine, kept: list[tuple[FactLine, int]]
) -> tuple[list[Line], list[Change]]:
    """`fact_remember`'s change to its file: the fact appended unless the file holds it; `kept`
    gets the line it is on."""
    # The index may lag a write racing ours: the file itself is checked again, locked.
    kept.clear()
    for number, line in enumerate(lines, 1):
        if line.fact and line.fact.identity == fact.identity:
            kept.append((line.fact, number))
            return lines, []
    new = markdown.append_fact(lines, fact)
    kept.append((fact, len(new)))
    return new, [change_of("add", rel, fact)]


def _held(scope: Scope, identity: str) -> StoredFact | None:
    # The newest stored copy anywhere in the scope (merged as readers merge shards).
    copies = fact_find(scopes=[scope], fact_id=identity)
    return _newest(copies) if copies else None


def _newest(copies: list[StoredFact]) -> StoredFact:
    return replace(max(copies, key=lambda f: (f.day, f.file)), existed=True)


@refusals_recorded("forget")
def fact_forget(
    *,
    shards: list[Shard],
    fact_id: str | None = None,
    text: str | None = None,
    by: str = "",
    via: str = "api",
) -> list[Change]:
    """Remove a fact (by identity, or by text ignoring case and spacing) from every file of
    these shards; raises FactNotFound if no file held it, and UnreadableFile (after removing
    every other copy) if a file that is not UTF-8 holds it."""
    ids = fact_identities(fact_id=fact_id, text=text)
    root = memory_root()
    removed: list[Change] = []
    stuck: list[str] = []
    for shard in shards:

        def drop(lines: list[Line], rel: str) -> tuple[list[Line], list[Change]]:
            hits = {i for i, line in enumerate(lines) if line.fact and line.fact.identity in ids}
            changes = [
                change_of("remove", rel, lines[i].fact, position=i + 1) for i in sorted(hits)
            ]
            return markdown.remove_lines(lines, hits), changes

        reading = prewrite_reading(scope=shard.scope, fact_ids=ids)
        with bot_lock(shard.bot, reading=reading) as row:
            state = prewrite_parse(row, scope=shard.scope)
            behind = state.behind(root, shard)
            for rel in files_holding_first(root, shard, ids, state, behind, only=True):
                try:
                    removed += file_rewrite(
                        rel,
                        lambda lines, rel=rel: drop(lines, rel),
                        by=by,
                        via=via,
                        indexed=state.files.get(rel),
                        restat=behind.restat,
                    )
                except UnreadableFile:
                    if unreadable_holds(rel, ids):
                        stuck.append(rel)
    if stuck:
        raise stuck_error(stuck, removed=len(removed), what="this fact")
    if not removed:
        raise FactNotFound("No fact with that id or text in the memory this bot may change.")
    return removed


@refusals_recorded("edit")
def fact_edit(
    *,
    shard: Shard,
    fact_id: str,
    text: str,
    expected_text: str | None = None,
    person: str | None = None,
    by: str = "",
    via: str = "console",
    day: date | None = None,
    meta: dict[str, object | None] | None = None,
) -> StoredFact:
    """Replace a fact's text in place (same file, same line; the date too if `day` is given,
    metadata keys set or, with None, dropped by `meta`), after the content rules (as for
    `fact_remember`). With `expected_text`, raise EditConflict (showing the current text) if
    the fact no longer reads that way. Moving a fact to another file (another tier, a log date
    in another month) is a forget and a remember."""
    new_text = markdown.clean_text(text)
    fact_id = fact_id.strip().lower()
    root = memory_root()
    result: list[StoredFact] = []
    people = content_people(shard=shard, person=person)
    reading = prewrite_reading(scope=shard.scope, fact_ids=[fact_id], people=people)
    with bot_lock(shard.bot, reading=reading) as row:
        state = prewrite_parse(row, scope=shard.scope, people=people)
        behind = state.behind(root, shard)
        check = partial(
            content_check, shard=shard, person=person, via=via, controls=state.controls, by=by
        )
        for rel in files_holding_first(root, shard, {fact_id}, state, behind):
            change = partial(
                _edited_in,
                rel=rel,
                fact_id=fact_id,
                new_text=new_text,
                expected_text=expected_text,
                day=day,
                meta=meta,
                by=by,
                via=via,
                check=check,
                result=result,
            )
            indexed = state.files.get(rel)
            try:
                file_rewrite(rel, change, by=by, via=via, indexed=indexed, restat=behind.restat)
            except UnreadableFile:
                if unreadable_holds(rel, {fact_id}):
                    raise
                continue
            if result:
                return result[0]
    if expected_text is not None:
        raise EditConflict(
            "This fact was removed by someone else.", detail={"current": None, "fact_id": fact_id}
        )
    raise FactNotFound(f"No fact {fact_id} in {shard.rel}.")


def _edited_in(
    lines: list[Line],
    *,
    rel: str,
    fact_id: str,
    new_text: str,
    expected_text: str | None,
    day: date | None,
    meta: dict[str, object | None] | None,
    by: str,
    via: str,
    check: Callable[..., None],
    result: list[StoredFact],
) -> tuple[list[Line], list[Change]]:
    """`fact_edit`'s change to one file: the fact's line edited (its stored copy put in
    `result`) after the content rules (`check`); EditConflict if it no longer reads
    `expected_text`."""
    result.clear()
    for i, line in enumerate(lines):
        if line.fact and line.fact.identity == fact_id:
            if expected_text is not None and line.fact.text != expected_text:
                raise EditConflict(
                    "This fact was changed by someone else; here is what it says now.",
                    detail={"current": line.fact.text, "fact_id": fact_id},
                )
            new = fact_with_changes(markdown.with_text(line.fact, new_text), day, meta)
            new = fact_claimed(new, by=by, via=via)
            check(fact=new)
            result.append(stored_of_line(rel, new, position=i + 1))
            if new == line.fact:
                return lines, []
            return markdown.replace_fact(lines, i, new), [
                change_of("edit", rel, new, old=line.fact)
            ]
    return lines, []


@refusals_recorded("restore")
def fact_restore(*, change: Change, by: str = "", via: str = "console") -> StoredFact:
    """Put a removed fact back into the file it was removed from, with its date and metadata,
    at the line it had (the end of the file when the removal did not record it)."""
    fact = markdown.parse_line(change.old_line or change.line)
    if fact is None or locate(change.file) is None:
        raise InvalidFact("That history entry does not hold a fact line of a memory file.")
    position = int(change.position) if change.position.isdigit() else None
    return facts_put_back(rel=change.file, facts=[(position, fact)], by=by, via=via)[0]


def facts_put_back(
    *, rel: str, facts: list[tuple[int | None, FactLine]], by: str = "", via: str = "console"
) -> list[StoredFact]:
    """Put removed fact lines back into one file, each at the line number it had (ascending, so
    a batch removed together comes back exactly; None: at the end), after the content rules. A
    fact the file already holds stays as it is. Recorded as `restore`, so whoever wrote a fact
    is still its author."""
    location = locate(rel)
    if location is None:
        raise InvalidFact(f"{rel} is not a memory file.")
    for _, fact in facts:
        content_check(shard=location.shard, fact=fact, person=None, via=via, by=by)
    result: list[StoredFact] = []

    def put(lines: list[Line]) -> tuple[list[Line], list[Change]]:
        result.clear()
        present = {line.fact.identity: n for n, line in enumerate(lines, 1) if line.fact}
        new, changes = list(lines), []
        newline = markdown.newline_of(lines)
        for position, fact in sorted(facts, key=lambda pair: (pair[0] is None, pair[0] or 0)):
            if fact.identity in present:
                held = new[present[fact.identity] - 1].fact
                result.append(stored_of_line(rel, held, position=present[fact.identity]))
                continue
            if position is None or position > len(new):
                new = markdown.append_fact(new, fact)
                at = len(new)
            else:
                new.insert(max(position, 1) - 1, markdown.line_for(fact, newline))
                at = max(position, 1)
            present = {line.fact.identity: n for n, line in enumerate(new, 1) if line.fact}
            result.append(stored_of_line(rel, fact, position=at))
            changes.append(change_of("restore", rel, fact, position=at))
        return new, changes

    with bot_lock(location.shard.bot):
        file_rewrite(rel, put, header=_HEADERS[location.tier_file], by=by, via=via)
    return result


@refusals_recorded("clear")
def memory_clear(*, bot: str, by: str = "", via: str = "console") -> int:
    """Remove every fact of a bot's own memory (headers and prose stay); returns how many.
    A file that is not UTF-8 keeps its facts: UnreadableFile names it after the rest is cleared."""
    shard = Scope("bot", bot).shard(bot)
    root = memory_root()
    count = 0
    stuck: list[str] = []
    with bot_lock(bot):
        for rel in shard_files(root, shard):

            def drop_all(lines: list[Line], rel: str = rel) -> tuple[list[Line], list[Change]]:
                hits = {i for i, line in enumerate(lines) if line.fact}
                return markdown.remove_lines(lines, hits), [
                    change_of("remove", rel, lines[i].fact, position=i + 1) for i in sorted(hits)
                ]

            try:
                count += len(file_rewrite(rel, drop_all, by=by, via=via))
            except UnreadableFile:
                if unreadable_holds(rel, None):
                    stuck.append(rel)
    if stuck:
        raise stuck_error(stuck, removed=count, what="their facts")
    return count
