"""What the write services share: the history `Change` a fact line makes, the identities a
forget names, which of a shard's files to rewrite first, a fact as an edit leaves it (new date,
metadata, claimed by a person), and what a file that is not UTF-8 says when it keeps a fact. It
takes no lock and writes no file (`memstore.store.services` does).
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
from memstore.vocabulary import AUTOMATIC_VIAS, PERSON_EDIT_VIAS


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


def fact_claimed(fact: FactLine, via: str) -> FactLine:
    """A machine-made fact (`via=learner|synthesis` in its line) that a person edits becomes
    saved on purpose: the `via` goes, so upkeep and synthesis leave it alone from then on."""
    if via in PERSON_EDIT_VIAS and fact.meta.get("via") in AUTOMATIC_VIAS:
        return replace(fact, meta={k: v for k, v in fact.meta.items() if k != "via"})
    return fact


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
