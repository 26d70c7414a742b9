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

from dataclasses import replace
from datetime import date
from pathlib import Path

from django.utils import timezone

from memstore.errors import EditConflict, FactNotFound, InvalidFact, UnreadableFile
from memstore.facts import markdown
from memstore.facts.files import read_bytes
from memstore.facts.history import Change
from memstore.facts.locks import bot_lock
from memstore.facts.markdown import FactLine, Line
from memstore.facts.paths import Scope, Shard, locate, memory_root, shard_files
from memstore.facts.ranking import Tier
from memstore.facts.records import StoredFact, stored_of_line
from memstore.rules.content import content_check, content_people
from memstore.rules.failures import refusals_recorded
from memstore.store.held import held_recorded
from memstore.store.prewrite import Behind, Prewrite, prewrite_parse, prewrite_reading
from memstore.store.rewrite import MAX_ATTEMPTS, Edit, file_rewrite
from memstore.store.selectors import fact_find
from memstore.vocabulary import AUTOMATIC_VIAS, PERSON_EDIT_VIAS

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
) -> StoredFact:
    """Save a fact in a shard's profile or log, after the content rules (`memstore.rules.content`;
    `person`: the person in the room, whose excluded topics apply to any scope).

    A fact whose identity the scope already holds (any file, any shard) is not written again:
    the stored copy comes back with `existed=True`. Raises UnreadableFile if the target file
    is not UTF-8."""
    if tier not in _TIER_TAGS:
        raise InvalidFact(f"Tier must be one of {', '.join(_TIER_TAGS)}, not {tier!r}.")
    fact = markdown.make_fact(
        text=text, day=day or timezone.localdate(), tag=_TIER_TAGS[tier], meta=meta
    )
    tier_file = "profile" if tier == "profile" else "log"
    rel = shard.file_rel(tier_file=tier_file, day=fact.day)
    kept: list[tuple[FactLine, int]] = []

    def add(lines: list[Line]) -> tuple[list[Line], list[Change]]:
        # The index may lag a write racing ours: the file itself is checked again, locked.
        kept.clear()
        for number, line in enumerate(lines, 1):
            if line.fact and line.fact.identity == fact.identity:
                kept.append((line.fact, number))
                return lines, []
        new = markdown.append_fact(lines, fact)
        kept.append((fact, len(new)))
        return new, [_change("add", rel, fact)]

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
    ids = _identities(fact_id=fact_id, text=text)
    root = memory_root()
    removed: list[Change] = []
    stuck: list[str] = []
    for shard in shards:

        def drop(lines: list[Line], rel: str) -> tuple[list[Line], list[Change]]:
            hits = {i for i, line in enumerate(lines) if line.fact and line.fact.identity in ids}
            changes = [_change("remove", rel, lines[i].fact, position=i + 1) for i in sorted(hits)]
            return markdown.remove_lines(lines, hits), changes

        reading = prewrite_reading(scope=shard.scope, fact_ids=ids)
        with bot_lock(shard.bot, reading=reading) as row:
            state = prewrite_parse(row, scope=shard.scope)
            behind = state.behind(root, shard)
            for rel in _holding_first(root, shard, ids, state, behind, only=True):
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
                    if _unreadable_holds(rel, ids):
                        stuck.append(rel)
    if stuck:
        raise _stuck_error(stuck, removed=len(removed), what="this fact")
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
        for rel in _holding_first(root, shard, {fact_id}, state, behind):

            def change(lines: list[Line], rel: str = rel) -> tuple[list[Line], list[Change]]:
                result.clear()
                for i, line in enumerate(lines):
                    if line.fact and line.fact.identity == fact_id:
                        if expected_text is not None and line.fact.text != expected_text:
                            raise EditConflict(
                                "This fact was changed by someone else; here is what it says now.",
                                detail={"current": line.fact.text, "fact_id": fact_id},
                            )
                        new = _with_changes(markdown.with_text(line.fact, new_text), day, meta)
                        new = _claimed(new, via)
                        content_check(
                            shard=shard,
                            fact=new,
                            person=person,
                            via=via,
                            controls=state.controls,
                            by=by,
                        )
                        result.append(stored_of_line(rel, new, position=i + 1))
                        if new == line.fact:
                            return lines, []
                        return markdown.replace_fact(lines, i, new), [
                            _change("edit", rel, new, old=line.fact)
                        ]
                return lines, []

            try:
                file_rewrite(
                    rel,
                    change,
                    by=by,
                    via=via,
                    indexed=state.files.get(rel),
                    restat=behind.restat,
                )
            except UnreadableFile:
                if _unreadable_holds(rel, {fact_id}):
                    raise
                continue
            if result:
                return result[0]
    if expected_text is not None:
        raise EditConflict(
            "This fact was removed by someone else.", detail={"current": None, "fact_id": fact_id}
        )
    raise FactNotFound(f"No fact {fact_id} in {shard.rel}.")


def _holding_first(
    root: Path, shard: Shard, ids: set[str], state: Prewrite, behind: Behind, *, only: bool = False
) -> list[str]:
    """The shard's files to rewrite for these facts: those the index says hold one first (with
    `only`, just those), then the rest; every file when the index knows of none or is behind a
    file of the shard, so a fact it missed is still found and a missing one still reported. A
    forget or an edit in a shard of 10,000 facts then parses one file instead of all of them.
    `state`: what the index held when the lock was taken (`prewrite`), `behind` its check."""
    every = shard_files(root, shard)
    if behind.files:
        return every
    holding = {
        copy.file for copy in state.copies if copy.shard_bot == shard.bot and copy.fact_id in ids
    }
    first = [rel for rel in every if rel in holding]
    if not first:
        return every
    return first if only else first + [rel for rel in every if rel not in holding]


def _claimed(fact: FactLine, via: str) -> FactLine:
    """A machine-made fact (`via=learner|synthesis` in its line) that a person edits becomes
    saved on purpose: the `via` goes, so upkeep and synthesis leave it alone from then on."""
    if via in PERSON_EDIT_VIAS and fact.meta.get("via") in AUTOMATIC_VIAS:
        return replace(fact, meta={k: v for k, v in fact.meta.items() if k != "via"})
    return fact


def _with_changes(
    fact: FactLine, day: date | None, meta: dict[str, object | None] | None
) -> FactLine:
    if meta is not None:
        merged: dict[str, object] = dict(fact.meta)
        for key, value in meta.items():
            if value is None or value == "":
                merged.pop(key, None)
            else:
                merged[key] = value
        fact = replace(fact, meta=markdown.clean_meta(merged))
    return replace(fact, day=markdown.day_check(day)) if day is not None else fact


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
            changes.append(_change("restore", rel, fact, position=at))
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
                    _change("remove", rel, lines[i].fact, position=i + 1) for i in sorted(hits)
                ]

            try:
                count += len(file_rewrite(rel, drop_all, by=by, via=via))
            except UnreadableFile:
                if _unreadable_holds(rel, None):
                    stuck.append(rel)
    if stuck:
        raise _stuck_error(stuck, removed=count, what="their facts")
    return count


def _unreadable_holds(rel: str, ids: set[str] | None) -> bool:
    # Read the way the index reads it (bad bytes replaced): does it hold one of these facts?
    try:
        data = read_bytes(memory_root() / rel)[0]
    except OSError:
        return False
    lines = markdown.parse_text(data.decode("utf-8", errors="replace"))
    return any(line.fact and (ids is None or line.fact.identity in ids) for line in lines)


def _stuck_error(files: list[str], *, removed: int, what: str) -> UnreadableFile:
    names = ", ".join(files)
    return UnreadableFile(
        f"{names} {'is' if len(files) == 1 else 'are'} not valid UTF-8, so "
        f"{'it keeps' if len(files) == 1 else 'they keep'} {what}; fix or re-save as UTF-8 and "
        f"try again ({removed} removed elsewhere).",
        detail={"files": files, "removed": removed},
    )


def _change(
    op: str, rel: str, fact: FactLine, old: FactLine | None = None, position: int | None = None
) -> Change:
    return Change(
        op=op,
        file=rel,
        fact_id=fact.identity,
        line=str(fact),
        old_line=str(old) if old else "",
        old_fact_id=old.identity if old else "",
        position="" if position is None else str(position),
    )


def _identities(*, fact_id: str | None, text: str | None) -> set[str]:
    if fact_id:
        return {fact_id.strip().lower()}
    if text and text.strip():
        body = text.strip()
        return {markdown.fact_identity(body)} | {
            markdown.fact_identity(f"[{t}] {body}") for t in markdown.TAGS
        }
    raise InvalidFact("Say which fact to forget: give its id or its text.")
