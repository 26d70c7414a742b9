"""A chat history through summarize: a ChatGPT export (`conversations.json`) or plain text, cut
into chunks within what one summarize call takes and sent to the learning model chunk by chunk
while the day's learning budget lasts (`memstore.learning.summarize`: the learner's known facts,
parser and rules).

Report mode by default: the model's proposals are listed for a person to review and nothing is
written; with `write=True` (`--write`) what it keeps is saved, each fact's `src=` naming the file
and line its chunk starts at. A ChatGPT export is a list of conversations, each a `mapping` of
message nodes (`message.author.role`, `message.content.parts`, `parent`) and its `current_node`:
the conversation as the person last saw it is the path from that node up to the root, so edited
and regenerated branches are left out. System and tool messages are not the conversation.
A person must be registered: the import never creates one.
"""

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from memstore.errors import MemstoreError
from memstore.imports.base import Skipped, Target, source
from memstore.imports.walk import read_text
from memstore.invocation import manage_command
from memstore.learning.summarize import MAX_TEXT_CHARS, text_summarize
from memstore.llm.budget import budget_exhausted
from memstore.llm.client import ModelClient
from memstore.llm.config import LearnerConfig, learner_config
from memstore.registry.people import person_canonical
from memstore.rooms.context import context_open

CHUNK_CHARS = min(8_000, MAX_TEXT_CHARS)
_ROLES = {"user": "user", "assistant": "assistant"}


@dataclass(frozen=True, slots=True)
class Turn:
    src: str
    text: str  # "user: …" or "assistant: …"


@dataclass
class ChatReport:
    """What the chat import did: chunks sent, facts kept or proposed, refused, and why it
    stopped early."""

    mode: str = "report"
    chunks: int = 0
    sent: int = 0
    kept: list[tuple[str, str, str]] = field(default_factory=list)  # (src, tier, text)
    refused: list[tuple[str, str, str]] = field(default_factory=list)  # (src, reason, text)
    skipped: list[Skipped] = field(default_factory=list)
    stopped: str = ""

    def lines(self) -> list[str]:
        """A summary for a person to review: every proposed (or saved) fact with its source."""
        verb = "Saved" if self.mode == "write" else "Proposed (report mode: nothing written)"
        out = [
            f"{verb}: {len(self.kept)} facts from {self.sent} of {self.chunks} chunks; "
            f"{len(self.refused)} refused; {len(self.skipped)} lines skipped."
        ]
        if self.stopped:
            out.append(f"  stopped: {self.stopped}")
        out += [f"  {tier}: {text} (src={src})" for src, tier, text in self.kept]
        out += [f"  refused ({reason}): {text} (src={src})" for src, reason, text in self.refused]
        out += [f"  skipped: {s.reason} (e.g. {s.src})" for s in self.skipped[:10]]
        return out


def chat_import(
    *,
    path: Path,
    target: Target,
    write: bool = False,
    dry_run: bool = False,
    client: ModelClient | None = None,
    config: LearnerConfig | None = None,
) -> ChatReport:
    """Summarize a chat history chunk by chunk; save what is kept only when `write`. A dry run
    only cuts the chunks: no model call, so not a token of the budget is spent."""
    config = config or learner_config()
    mode = "write" if write and config.mode != "off" else "report"
    report = ChatReport(mode=mode)
    turns = read_chat(path)
    report.skipped = [t for t in turns if isinstance(t, Skipped)]
    chunks = chunked([t for t in turns if isinstance(t, Turn)])
    report.chunks = len(chunks)
    if dry_run:
        report.stopped = (
            f"dry run: {len(chunks)} chunks of at most {CHUNK_CHARS:,} characters "
            "would go to the learning model"
        )
        return report
    if config.mode == "off":
        report.stopped = "learning is off: no model is configured, or LEARNING_MODE=off"
        return report
    person = _person(target.person, report)
    if target.person and person is None:
        return report
    ctx = context_open(
        bot=target.bot or "",
        room_id="import",
        room_kind="direct" if person else "routine",
        person=person,
        projects=[target.project] if target.project else [],
    )
    scope = "project" if target.project else None
    for src, text in chunks:
        if message := budget_exhausted(daily_tokens=config.daily_tokens):
            report.stopped = f"{message} {report.chunks - report.sent} chunks left for another run."
            break
        try:
            summary = text_summarize(
                ctx=ctx,
                text=text,
                scope=scope,
                project=target.project,
                client=client,
                config=replace(config, mode=mode),
                src=src,
            )
        except MemstoreError as exc:
            report.stopped = f"{exc.code}: {exc.message}"
            break
        report.sent += 1
        report.kept += [(src, f.tier, f.text) for f in summary.saved]
        report.kept += [(src, p.tier, p.text) for p in summary.proposed]
        report.refused += [(src, r.reason, r.text) for r in summary.refused]
    return report


def _person(name: str | None, report: ChatReport) -> str | None:
    if not name:
        return None
    try:
        return person_canonical(name=name)
    except MemstoreError:  # unknown, or not a person's name
        report.stopped = (
            f"person {name!r} is not registered: add them "
            f"(`{manage_command('people', 'add', name)}`); an import never creates people"
        )
    return None


def read_chat(path: Path) -> list[Turn | Skipped]:
    """The turns of a ChatGPT export, or each non-empty line of a plain-text history."""
    root = path.resolve() if path.is_symlink() else path
    if root.is_dir():
        root = root / "conversations.json"
    raw = read_text(root, root)
    if isinstance(raw, Skipped):
        return [raw]
    if root.suffix == ".json":
        try:
            data = json.loads(raw)
        except ValueError as exc:
            return [Skipped(source(root, root, 0), f"not valid JSON: {exc}")]
        return _chatgpt(data, raw, root)
    return [
        Turn(source(root, root, n), line.strip())
        for n, line in enumerate(raw.splitlines(), start=1)
        if line.strip()
    ]


def _chatgpt(data: object, raw: str, root: Path) -> list[Turn | Skipped]:
    if not isinstance(data, list):
        return [Skipped(source(root, root, 0), "not a ChatGPT export: no list of conversations")]
    turns: list[Turn | Skipped] = []
    for conversation in data:
        mapping = conversation.get("mapping") if isinstance(conversation, dict) else None
        if not isinstance(mapping, dict):
            turns.append(Skipped(source(root, root, 0), "a conversation without a mapping"))
            continue
        title = str(conversation.get("title") or "Untitled")
        turns.append(Turn(_line(raw, root, conversation.get("id")), f"Conversation: {title}"))
        for node_id in _branch(mapping, conversation.get("current_node")):
            message = (mapping.get(node_id) or {}).get("message") or {}
            role = _ROLES.get(((message.get("author") or {}).get("role")) or "")
            parts = (message.get("content") or {}).get("parts") or []
            text = " ".join(p for p in parts if isinstance(p, str)).strip()
            if role and text:
                turns.append(
                    Turn(
                        _line(raw, root, message.get("id") or node_id),
                        f"{role}: {' '.join(text.split())}",
                    )
                )
    return turns


def _branch(mapping: dict, current: object) -> list[str]:
    """The nodes from the root down to `current` (every node in order when there is none)."""
    if not isinstance(current, str) or current not in mapping:
        return list(mapping)
    path, seen = [], set()
    while isinstance(current, str) and current in mapping and current not in seen:
        seen.add(current)
        path.append(current)
        current = mapping[current].get("parent")
    return path[::-1]


def _line(raw: str, root: Path, key: object) -> str:
    at = raw.find(json.dumps(str(key))) if key else -1
    return source(root, root, raw.count("\n", 0, at) + 1 if at >= 0 else 0)


def chunked(turns: list[Turn], size: int = CHUNK_CHARS) -> list[tuple[str, str]]:
    """Consecutive turns joined into chunks of at most `size` characters (a longer turn is cut
    into pieces), each with the source of its first turn."""
    chunks: list[tuple[str, str]] = []
    src, parts, length = "", [], 0
    for turn in turns:
        for piece in [turn.text[i : i + size] for i in range(0, len(turn.text), size)]:
            if parts and length + len(piece) + 1 > size:
                chunks.append((src, "\n".join(parts)))
                parts, length = [], 0
            if not parts:
                src = turn.src
            parts.append(piece)
            length += len(piece) + 1
    if parts:
        chunks.append((src, "\n".join(parts)))
    return chunks
