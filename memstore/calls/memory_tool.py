"""The backend of Claude's memory tool (`memory_20250818`): its six commands over the memory a
bot may write in a room, so an agent's native memory is governed team memory.

The tool sees a small fixed tree under `/memories`, one file per scope this room may write:

    /memories/bot.md              the bot's own memory
    /memories/user.md             what it knows about the person (direct rooms only)
    /memories/projects/<p>.md     each project in play that the bot joined

A file's lines are the scope's facts, one `- text` line each, oldest first (the newest
VIEW_LIMIT of them; copies in other bots' shards merged; hidden, withheld and expired facts left
out, as for any read of this room). Every change goes through the bots' door for facts
(`memstore.calls.facts`, the one write path), so secrets, excluded topics, instruction-shaped
text, audiences, history and hand-edit safety hold as for any save:

    create / insert   each non-blank line becomes a fact (duplicates collapse); nothing removed
    str_replace       the one fact holding `old_str` is edited (an empty result: forgotten)
    delete / rename   refused: a file is a scope with its own audience, not a document

Does not: keep free-form files, reorder facts (they keep date order), or clear a scope.
"""

import posixpath
import re
from dataclasses import dataclass

from memstore.calls.facts import bot_edit, bot_facts_list, bot_forget, bot_remember
from memstore.errors import MemoryToolRefused, MemstoreError
from memstore.facts.paths import ScopeKind
from memstore.facts.records import StoredFact
from memstore.rooms.access import Context

ROOT = "/memories"
VIEW_LIMIT = 200  # lines a file shows; older facts are found with recall
MAX_LINES = 50  # facts one create or insert may add
VIA = "tool"
_BULLET = re.compile(r"^(?:[-*+]|\d{1,3}[.)])\s+")
_DATED = re.compile(r"^\(\d{4}-\d{2}-\d{2}\)\s+")
_VIEW_NOTE = ": recall finds them)"
COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")


@dataclass(frozen=True, slots=True)
class MemoryCommand:
    """One tool call as Claude sends it (the fields its command uses; the rest None)."""

    command: str
    path: str | None = None
    view_range: tuple[int, int] | None = None
    file_text: str | None = None
    old_str: str | None = None
    new_str: str | None = None
    insert_line: int | None = None
    insert_text: str | None = None
    old_path: str | None = None
    new_path: str | None = None


@dataclass(frozen=True, slots=True)
class MemoryFile:
    """A file of the tree: the scope (kind, and project name) whose facts it shows."""

    path: str
    kind: ScopeKind
    project: str | None
    about: str


def memory_files(ctx: Context) -> list[MemoryFile]:
    """The files this room's tree holds: own memory, the person's (direct rooms), and each
    project in play the bot joined."""
    files = [MemoryFile(f"{ROOT}/bot.md", "bot", None, f"bot {ctx.bot}'s own memory")]
    if ctx.user_memory_allowed and ctx.person:
        files.append(MemoryFile(f"{ROOT}/user.md", "user", None, f"about {ctx.person}"))
    files += [
        MemoryFile(f"{ROOT}/projects/{p}.md", "project", p, f"project {p}")
        for p in ctx.projects
        if p in ctx.joined
    ]
    return files


def memory_command(*, ctx: Context, call: MemoryCommand) -> str:
    """Carry out one memory-tool command in this room and answer as the tool does (text for the
    model); a command that can't be done raises MemoryToolRefused saying why, and a save the
    gate refuses raises the gate's error."""
    if call.command == "view":
        return _view(ctx, _required(call.path, "path"), call.view_range)
    if call.command in ("create", "insert"):
        text = call.file_text if call.command == "create" else call.insert_text
        field = "file_text" if call.command == "create" else "insert_text"
        if call.command == "insert" and (call.insert_line is None or call.insert_line < 0):
            raise MemoryToolRefused("insert needs insert_line, a line number from 0.")
        return _add(ctx, _file(ctx, _required(call.path, "path")), _required(text, field))
    if call.command == "str_replace":
        file = _file(ctx, _required(call.path, "path"))
        return _replace(ctx, file, _required(call.old_str, "old_str"), call.new_str or "")
    if call.command == "delete":
        file = _file(ctx, _required(call.path, "path"))
        raise MemoryToolRefused(
            f"{file.path} is {file.about}, not a document: it is not deleted whole. Remove one "
            "line at a time with str_replace and an empty new_str; a person can clear a bot's "
            "memory in the console."
        )
    if call.command == "rename":
        _file(ctx, _required(call.old_path, "old_path"))
        raise MemoryToolRefused(
            "Files here are memory scopes with their own audiences; facts are not moved between "
            "them by renaming. Create the line in the other file and remove it from this one."
        )
    raise MemoryToolRefused(f"Unknown command {call.command!r}: use one of {', '.join(COMMANDS)}.")


def _required(value, name: str):
    if value is None:
        raise MemoryToolRefused(f"This command needs {name}.")
    return value


def _normal(path: str) -> str:
    normal = posixpath.normpath(path.strip() or "/")
    if ".." in path.split("/") or not (normal == ROOT or normal.startswith(ROOT + "/")):
        raise MemoryToolRefused(f"The path {path!r} is outside {ROOT}: memory lives only there.")
    return normal


def _file(ctx: Context, path: str) -> MemoryFile:
    normal = _normal(path)
    for file in memory_files(ctx):
        if file.path == normal:
            return file
    names = ", ".join(f.path for f in memory_files(ctx))
    raise MemoryToolRefused(
        f"There is no file {normal} here. Memory in this room is kept as facts in these files: "
        f"{names}. Write one fact a line into the one whose audience fits."
    )


# --- reading ------------------------------------------------------------------------------------


def _facts(ctx: Context, file: MemoryFile, contains: str | None = None) -> tuple[list, int]:
    page = bot_facts_list(
        ctx=ctx,
        scope=file.kind,
        project=file.project,
        contains=contains,
        expired=False,
        limit=VIEW_LIMIT,
    )
    total = page.total if page.total is not None else len(page.items)
    return list(reversed(page.items)), total


def _line(fact: StoredFact) -> str:
    return f"- {fact.text}"


def _lines(ctx: Context, file: MemoryFile) -> list[str]:
    facts, total = _facts(ctx, file)
    lines = [f"# {file.about[0].upper()}{file.about[1:]}"]
    if total > len(facts):
        lines.append(f"({total - len(facts)} older facts not shown{_VIEW_NOTE}")
    return lines + [_line(f) for f in facts]


def _view(ctx: Context, path: str, view_range: tuple[int, int] | None) -> str:
    normal = _normal(path)
    files = memory_files(ctx)
    if normal == ROOT or normal == f"{ROOT}/projects":
        shown = [f for f in files if f.path.startswith(normal + "/")]
        listing = "\n".join(f"{f.path}\t({f.about})" for f in shown) or "(no files)"
        return f"Here are the files in {normal}, one per memory scope of this room:\n{listing}"
    lines = _lines(ctx, _file(ctx, normal))
    start, end = 1, len(lines)
    if view_range is not None:
        start, end = view_range[0], len(lines) if view_range[1] == -1 else view_range[1]
        if not 1 <= start <= max(end, 1) or end > len(lines):
            raise MemoryToolRefused(
                f"view_range {list(view_range)} is outside the file's lines 1 to {len(lines)}."
            )
    numbered = "\n".join(f"{n:6d}\t{lines[n - 1]}" for n in range(start, end + 1))
    return f"Here's the content of {normal} with line numbers:\n{numbered}"


# --- writing ------------------------------------------------------------------------------------


def fact_texts(text: str) -> list[str]:
    """The facts a block of file text holds: one per non-blank line, without a list bullet or a
    leading date; headings, code fences and the view's own notes are not facts."""
    texts = []
    for raw in text.splitlines():
        line = _DATED.sub("", _BULLET.sub("", raw.strip()))
        if line and not line.startswith(("#", "```")) and not line.endswith(_VIEW_NOTE):
            texts.append(line)
    return texts


def _add(ctx: Context, file: MemoryFile, text: str) -> str:
    texts = fact_texts(text)
    if not texts:
        raise MemoryToolRefused("Nothing to save: write one fact a line (headings are skipped).")
    if len(texts) > MAX_LINES:
        raise MemoryToolRefused(f"At most {MAX_LINES} facts at once; this text has {len(texts)}.")
    saved, existed, refused = 0, 0, []
    first_error: MemstoreError | None = None
    for line in texts:
        try:
            fact = _save(ctx, file, line)
        except MemstoreError as error:
            refused.append(f"- {line[:80]}: {error}")
            first_error = first_error or error
            continue
        existed, saved = existed + fact.existed, saved + (not fact.existed)
    if first_error is not None and not saved and not existed:
        raise first_error
    answer = f"Saved {saved} new fact(s) in {file.path} ({file.about})"
    answer += f"; {existed} already there." if existed else "."
    if refused:
        answer += " Refused, nothing written for them:\n" + "\n".join(refused)
    return answer


def _save(ctx: Context, file: MemoryFile, text: str) -> StoredFact:
    return bot_remember(
        ctx=ctx, text=text, scope=file.kind, project=file.project, tier="profile", via=VIA
    )


def _replace(ctx: Context, file: MemoryFile, old: str, new: str) -> str:
    needle = old.strip("\n")
    if "\n" in needle:
        raise MemoryToolRefused(
            "old_str spans several lines, and each line is a separate fact: replace one line "
            "at a time."
        )
    words = _BULLET.sub("", needle.strip()).strip() or needle.strip()
    if not words or words == "-":
        raise MemoryToolRefused("old_str is empty: quote the text of the line to change.")
    found, _ = _facts(ctx, file, contains=words)
    holding = [f for f in found if needle in _line(f)]
    if not holding:
        raise MemoryToolRefused(f"No replacement was made: old_str {old!r} is not in {file.path}.")
    if len(holding) > 1:
        raise MemoryToolRefused(
            f"old_str {old!r} is in {len(holding)} lines of {file.path}; quote more of the line "
            "so it names one."
        )
    fact = holding[0]
    if fact.shard_bot != ctx.bot:
        raise MemoryToolRefused(
            f"That line of {file.path} was saved by bot {fact.shard_bot}, not {ctx.bot}: only "
            "its writer (or a person in the console) can change it."
        )
    return _rewrite(ctx, file, fact, fact_texts(_line(fact).replace(needle, new, 1)))


def _rewrite(ctx: Context, file: MemoryFile, fact: StoredFact, texts: list[str]) -> str:
    where = dict(scope=file.kind, project=file.project, via=VIA)
    if not texts:
        bot_forget(ctx=ctx, fact_id=fact.fact_id, **where)
        return f"Removed from {file.path}: - {fact.text}"
    edited = bot_edit(
        ctx=ctx, fact_id=fact.fact_id, text=texts[0], expected_text=fact.text, **where
    )
    for text in texts[1:]:
        _save(ctx, file, text)
    added = f" (and {len(texts) - 1} new line(s) saved)" if len(texts) > 1 else ""
    return f"Edited {file.path}: the line now reads - {edited.text}{added}"
