"""What the write services share: the history `Change` a fact line makes, the identities a
forget names, which of a shard's files to rewrite first, who wrote a line (the `by=`, `via=`
and `for=` a save writes on it), a fact as an edit leaves it (new date, metadata, claimed by a
person), and what a file that is not UTF-8 says when it keeps a fact. It takes no lock and
writes no file (`memstore.store.services` does).
"""

from dataclasses import replace
from datetime import date
from pathlib import Path

from memstore.errors import InvalidFact, UnreadableFile
from memstore.facts import markdown
from memstore.facts.files import read_bytes
from memstore.facts.history import Change
from memstore.facts.markdown import FactLine
from memstore.facts.paths import Shard, memory_root, shard_files
from memstore.store.prewrite import Behind, Prewrite
from memstore.vocabulary import PERSON_EDIT_VIAS


def files_holding_first(
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


# Who wrote a line (SPEC 3.1): `by=` the bot that saved it (the person, in the console), `via=`
# the door it came in by, `for=` the person who acted through the bot (a connection they made
# "as me", a fact they asked it to remember).
BY_KEY, VIA_KEY, FOR_KEY = "by", "via", "for"
_AUTHOR_KEYS = (BY_KEY, VIA_KEY, FOR_KEY)


def meta_authored(
    meta: dict[str, object] | None, *, by: str, via: str, acting: str | None = None
) -> dict[str, object]:
    """The metadata a new line is saved with: the caller's, then who saved it and how, and the
    person who acted through the bot, where the caller's does not say already (a learned line,
    a restored export keep theirs). Nothing is added when no writer is named (`by` empty: a
    service called directly, not through a door), and a name a metadata value can't hold (one
    with "--") is left to the history, which records every writer."""
    authored: dict[str, object] = dict(meta or {})
    if not by:
        return authored
    for key, value in zip(_AUTHOR_KEYS, (by, via, acting), strict=True):
        if value and "--" not in value:
            authored.setdefault(key, value)
    return authored


def fact_claimed(fact: FactLine, *, by: str, via: str) -> FactLine:
    """A fact a person edits in the console becomes theirs: `by=<them> via=console` (the bot's
    `for=` goes), so the line shows the same author the console did when they saved it, and a
    machine-made one (`via=learner|synthesis`) is saved on purpose from then on: upkeep and
    synthesis leave it alone. A bot's edit keeps who wrote the line."""
    if via not in PERSON_EDIT_VIAS:
        return fact
    claimed = meta_claimed(fact.meta, by=by, via=via)
    if claimed == fact.meta:
        return fact
    return replace(fact, meta=markdown.clean_meta(claimed))


def meta_claimed(meta: dict[str, str], *, by: str, via: str) -> dict[str, object]:
    """A line's metadata once a person made it theirs (`fact_claimed`; a console move, which
    saves the line anew, too): who wrote it replaced by them."""
    kept: dict[str, object] = {k: v for k, v in meta.items() if k not in _AUTHOR_KEYS}
    return meta_authored(kept, by=by, via=via)


def fact_with_changes(
    fact: FactLine, day: date | None, meta: dict[str, object | None] | None
) -> FactLine:
    """The fact with `day` set (if given) and `meta` keys set or, with None or "", dropped."""
    if meta is not None:
        merged: dict[str, object] = dict(fact.meta)
        for key, value in meta.items():
            if value is None or value == "":
                merged.pop(key, None)
            else:
                merged[key] = value
        fact = replace(fact, meta=markdown.clean_meta(merged))
    return replace(fact, day=markdown.day_check(day)) if day is not None else fact


def unreadable_holds(rel: str, ids: set[str] | None) -> bool:
    """Whether the file, read the way the index reads it (bad bytes replaced), holds one of
    these facts (any fact with `ids` None)."""
    try:
        data = read_bytes(memory_root() / rel)[0]
    except OSError:
        return False
    lines = markdown.parse_text(data.decode("utf-8", errors="replace"))
    return any(line.fact and (ids is None or line.fact.identity in ids) for line in lines)


def stuck_error(files: list[str], *, removed: int, what: str) -> UnreadableFile:
    """The error for files that are not UTF-8 and so keep `what`, after `removed` elsewhere."""
    names = ", ".join(files)
    return UnreadableFile(
        f"{names} {'is' if len(files) == 1 else 'are'} not valid UTF-8, so "
        f"{'it keeps' if len(files) == 1 else 'they keep'} {what}; fix or re-save as UTF-8 and "
        f"try again ({removed} removed elsewhere).",
        detail={"files": files, "removed": removed},
    )


def change_of(
    op: str, rel: str, fact: FactLine, old: FactLine | None = None, position: int | None = None
) -> Change:
    """The history entry of `op` on a fact line of `rel` (`old`: the line it replaced)."""
    return Change(
        op=op,
        file=rel,
        fact_id=fact.identity,
        line=str(fact),
        old_line=str(old) if old else "",
        old_fact_id=old.identity if old else "",
        position="" if position is None else str(position),
    )


def fact_identities(*, fact_id: str | None, text: str | None) -> set[str]:
    """The identities a forget names: the id, or the text's with and without each tag."""
    if fact_id:
        return {fact_id.strip().lower()}
    if text and text.strip():
        body = text.strip()
        return {markdown.fact_identity(body)} | {
            markdown.fact_identity(f"[{t}] {body}") for t in markdown.TAGS
        }
    raise InvalidFact("Say which fact to forget: give its id or its text.")
