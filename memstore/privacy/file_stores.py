"""The memory folder's places for a fact's text: the memory files (fact lines, by identity),
the shards' histories, the always-on notes with their kept versions, and every other file
under MEMORY_ROOT (the failure log, the controls' audit, anything left there by hand). Each is
a `Store` (`memstore.privacy.place`); `memstore.privacy.stores` lists them.

Memory files are changed by the ordinary forget (locked, atomic, re-synced). Histories are
rewritten under the bot locks the erase holds (every append happens under them), notes under
their note lock, the rest with a checked atomic replace that is retried if the file changed.
Hidden files and folders (temp files, `.git`) are nobody's text and are not read.
"""

import json
import os
from dataclasses import asdict, replace
from pathlib import Path

from django.db import transaction

from memstore.errors import EditConflict, FactNotFound, UnreadableFile
from memstore.facts import markdown
from memstore.facts.files import ChangedOnDisk, read_snapshot, write_atomic
from memstore.facts.history import HISTORY_FILE, Change, change_parse, history_path, history_read
from memstore.facts.locks import note_lock
from memstore.facts.paths import locate, memory_root, shard_files
from memstore.privacy.place import Erasing
from memstore.privacy.reach import Reach, owner_of_path
from memstore.privacy.target import Occurrence, Target
from memstore.store.services import MAX_ATTEMPTS, fact_forget

NOTE_TOPS = ("workspace", "users", "agents")  # `<top>[/<name>]/notes/`: memstore.prompt.notes


class MemoryFiles:
    """The fact lines of the shards' Markdown files (matched by identity)."""

    kind = "file"
    holds = ("memory files: <shard>/profile.md, <shard>/log/YYYY-MM.md",)

    def find(self, target: Target, reach: Reach) -> list[Occurrence]:
        root, found = memory_root(), []
        for shard in reach.shards:
            for rel in shard_files(root, shard):
                raw = (root / rel).read_bytes().decode("utf-8", errors="replace")
                for number, line in enumerate(markdown.parse_text(raw), 1):
                    if note := _copy_note(line.fact, target):
                        found.append(Occurrence("file", f"{rel}:{number}", note))
        return found

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        try:
            erasing.removed = fact_forget(
                shards=list(reach.shards),
                fact_id=erasing.fact_id,
                text=erasing.text,
                by=erasing.by,
                via=erasing.via,
            )
        except FactNotFound:
            erasing.removed = []
        except UnreadableFile as error:  # the other copies are gone: clean up, then say so
            erasing.removed, erasing.stuck = [], error
        for copy in erasing.derived:  # what was made from it, wherever it is kept
            try:
                erasing.removed += fact_forget(
                    shards=[copy.shard], fact_id=copy.fact_id, by=erasing.by, via=erasing.via
                )
            except FactNotFound:
                continue  # gone with the fact itself (the same shard)
            except UnreadableFile as error:
                erasing.stuck = erasing.stuck or error
        return len(erasing.removed)


def _copy_note(fact: markdown.FactLine | None, target: Target) -> str:
    """Why this line is a copy of the target ("" if it is not): its identity, or (a safety
    net for a copy nothing links) its text holding the target's."""
    if fact is None:
        return ""
    if fact.identity in target.ids:
        return f"fact {fact.identity}"
    if target.holds(fact.body):
        return f"fact {fact.identity}: holds its text, not linked to it; erase it by its id"
    return ""


class Histories:
    """Each shard's `history.jsonl`: a line holding the fact becomes a tombstone (its id and
    time stay), so it can no longer be listed or restored."""

    kind = "history"
    holds = (f"<shard>/{HISTORY_FILE}",)

    def find(self, target: Target, reach: Reach) -> list[Occurrence]:
        root = memory_root()
        return [
            Occurrence("history", f"{shard.rel}/{HISTORY_FILE}", f"{change.op} at {change.at}")
            for shard in reach.shards
            for change in history_read(root, shard)
            if target.change_holds(change)
        ]

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        # The caller holds every shard bot's lock: every append to these histories (services,
        # index sync) happens under it, so nothing is appended between read and replace.
        root = memory_root()
        count = sum(
            _rewrite(history_path(root, s), lambda t: _tombstoned(t, target, erasing.mark))
            for s in reach.shards
        )
        # Shards outside the reach: only the lines of the copies made from the fact.
        elsewhere: dict = {}
        for copy in erasing.derived:
            if copy.shard not in reach.shards:
                elsewhere.setdefault(copy.shard, set()).add(copy.fact_id)
        for shard, ids in sorted(elsewhere.items()):
            only = Target(ids=frozenset(ids), texts=())
            count += _rewrite(
                history_path(root, shard), lambda t, o=only: _tombstoned(t, o, erasing.mark)
            )
        return count


def _tombstoned(text: str, target: Target, mark: str) -> tuple[str, int]:
    lines, count = [], 0
    for raw in text.split("\n"):
        change = change_parse(raw) if raw.strip() else None
        if change is not None and target.change_holds(change):
            lines.append(_tombstone(change, target, mark))
            count += 1
        else:
            lines.append(raw)
    return "\n".join(lines), count


def _tombstone(change: Change, target: Target, mark: str) -> str:
    erased = replace(
        change,
        line=mark if change.fact_id in target.ids else change.line,
        old_line=mark if change.old_fact_id in target.ids else change.old_line,
    )
    return json.dumps(asdict(erased), ensure_ascii=False)


def _rewrite(path: Path, change) -> int:
    """Apply `change` (text -> (new text, count)) to a file with a checked atomic replace,
    reading again if it changed meanwhile; how many places it changed."""
    for _ in range(MAX_ATTEMPTS):
        snapshot = read_snapshot(path)
        if snapshot.text is None:
            return 0
        text, count = change(snapshot.text)
        if not count:
            return 0
        try:
            write_atomic(path, text, expected=snapshot.signature)
        except ChangedOnDisk:
            continue
        return count
    raise EditConflict(f"{path.name} kept changing; try the erase again.")


def _walk(root: Path, top: Path) -> list[str]:
    """Every regular file under `top` (hidden names skipped), relative to `root`, sorted."""
    found, base = [], len(str(root)) + 1
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        rel = folder[base:].replace(os.sep, "/")
        found += [f"{rel}/{name}" if rel else name for name in files if not name.startswith(".")]
    return sorted(found)


def note_of(rel: str) -> str | None:
    """The note file (`…/notes/<name>.md`) a file under a notes folder belongs to: itself, or
    for a kept version (`…/notes/versions/<name>/<stamp>.md`) its note; None if no note's."""
    parts = rel.split("/")
    if parts[0] not in NOTE_TOPS:
        return None
    at = 1 if parts[0] == "workspace" else 2
    tail = parts[at + 1 :]
    if len(parts) <= at or parts[at] != "notes" or not rel.endswith(".md"):
        return None
    if len(tail) == 1:
        return rel
    if len(tail) == 3 and tail[0] == "versions":
        return "/".join([*parts[: at + 1], f"{tail[1]}.md"])
    return None


class Notes:
    """Always-on notes ("About this workspace", "About you", "About me") and the versions a
    save keeps: the fact's words are redacted in place (no new version keeps them)."""

    kind = "note"
    holds = ("notes: <top>/notes/<name>.md and notes/versions/<name>/<stamp>.md",)

    def files(self, reach: Reach) -> list[str]:
        root = memory_root()
        folders = [root / "workspace/notes"] + [
            entry / "notes"
            for top in NOTE_TOPS[1:]
            if (root / top).is_dir()
            for entry in sorted((root / top).iterdir())
            if not entry.name.startswith(".")
        ]
        rels = [r for folder in folders for r in _walk(root, folder) if note_of(r)]
        return [r for r in rels if reach.owns(**_owner(r))]

    def find(self, target: Target, reach: Reach) -> list[Occurrence]:
        root = memory_root()
        return [
            Occurrence("note", rel) for rel in self.files(reach) if target.holds(_text(root / rel))
        ]

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        root, count = memory_root(), 0
        by_note: dict[str, list[str]] = {}
        for rel in self.files(reach):
            by_note.setdefault(note_of(rel), []).append(rel)
        for note, rels in sorted(by_note.items()):
            with transaction.atomic():
                note_lock(note)  # as `note_save` takes it: no save keeps a version meanwhile
                for rel in rels:
                    count += _rewrite(root / rel, lambda t: _redacted(t, target))
        return count


def _owner(rel: str) -> dict[str, str | None]:
    bot, person = owner_of_path(rel)
    return {"bot": bot, "person": person}


def _text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except (FileNotFoundError, IsADirectoryError):
        return ""


def _redacted(text: str, target: Target) -> tuple[str, int]:
    return target.redact(text), int(target.holds(text))


class OtherFiles:
    """Every other file under MEMORY_ROOT that holds the fact's text: the failure log, a
    person's controls audit, files in misnamed folders, anything put there by hand. JSON
    lines are redacted value by value (a line naming a bot is that bot's), others as text."""

    kind = "other"
    holds = ("every other file under MEMORY_ROOT (failures.jsonl, controls audit, ...)",)

    def files(self) -> list[str]:
        root = memory_root()
        return [rel for rel in _walk(root, root) if not _claimed(rel)]

    def find(self, target: Target, reach: Reach) -> list[Occurrence]:
        root = memory_root()
        found = []
        for rel in self.files():
            _, count = _other_redacted(_text(root / rel), rel, target, reach)
            if count:
                found.append(Occurrence("other", rel, f"{count} place(s)"))
        return found

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        root = memory_root()
        return sum(
            _rewrite(root / rel, lambda t, rel=rel: _other_redacted(t, rel, target, reach))
            for rel in self.files()
        )


def _claimed(rel: str) -> bool:
    # Read by another store: memory files, histories of real shards, notes.
    if locate(rel) is not None or note_of(rel) is not None:
        return True
    folder, _, name = rel.rpartition("/")
    return name == HISTORY_FILE and locate(f"{folder}/profile.md") is not None


def _other_redacted(text: str, rel: str, target: Target, reach: Reach) -> tuple[str, int]:
    owner = _owner(rel)
    if not rel.endswith(".jsonl"):
        if not (reach.owns(**owner) and target.holds(text)):
            return text, 0
        return target.redact(text), 1
    lines, count = [], 0
    for raw in text.split("\n"):
        try:
            record = json.loads(raw) if raw.strip() else None
        except ValueError:
            record = None
        if record is None:
            held = reach.owns(**owner) and target.holds(raw)
            lines.append(target.redact(raw) if held else raw)
        else:
            bot = record.get("bot") if isinstance(record, dict) else None
            held = reach.owns(bot=bot or owner["bot"], person=owner["person"])
            held = held and target.json_holds(record)
            lines.append(
                json.dumps(target.json_redact(record), ensure_ascii=False) if held else raw
            )
        count += held
    return "\n".join(lines), count
