"""Where a fact still is: the rules that say what counts as a copy of it, and the scan behind
`manage.py memory verify-forgotten`.

A fact is named by its identity or by its text (`target_resolve`). A *copy* is a fact line of
that identity (memory files, index rows), a cached embedding of it, a history line that still
holds its text (a plain forget keeps it there, so it can be restored; an erase turns it into a
tombstone), or stored text that contains it (exchanges, learning events, their plans,
idempotent replies, upkeep proposals). `copies_outside` answers a forget with the copies it could not touch.

This module only reads; `memstore.privacy.erase` removes what it finds, using the same rules.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from django.db.models import Q, TextField
from django.db.models.functions import Cast

from memstore.errors import InvalidFact
from memstore.facts import markdown
from memstore.facts.activity import workspace_shards
from memstore.facts.history import Change, history_read
from memstore.facts.paths import Shard, all_scopes, memory_root, shard_files
from memstore.facts.records import StoredFact, stored_from_row
from memstore.index import index_sync
from memstore.models import (
    Embedding,
    Exchange,
    Fact,
    IdempotentReply,
    LearningEvent,
    Proposal,
)
from memstore.vocabulary import FACT_ID_PATTERN

REDACTED = "[erased]"
_TOMBSTONE_RE = re.compile(r"^\[erased \d{4}-\d{2}-\d{2} by [^\]]*\]$")
EXCHANGE_TEXT_FIELDS = ("message", "reply", "episode", "error")
EVENT_TEXT_FIELDS = ("text", "detail")
PROPOSAL_TEXT_FIELDS = ("text", "reason", "verdict")


def tombstone(*, day: str, by: str) -> str:
    """What an erased history line says instead of the fact: when and by whom."""
    return f"[erased {day} by {by or 'unknown'}]"


def is_tombstone(line: str) -> bool:
    """Whether a history line's text is an erase tombstone."""
    return bool(_TOMBSTONE_RE.fullmatch(line))


@dataclass(frozen=True, slots=True)
class Target:
    """The fact being forgotten: its identities (with and without a tier tag) and the texts
    whose occurrences in stored learner text count as copies."""

    ids: frozenset[str]
    texts: tuple[str, ...]

    def holds(self, value: str | None) -> bool:
        """Whether this stored text contains the fact's text (case and spacing ignored)."""
        return bool(value) and any(p.search(value) for p in self._patterns())

    def redact(self, value: str) -> str:
        """The stored text with every occurrence of the fact's text replaced by REDACTED."""
        for pattern in self._patterns():
            value = pattern.sub(REDACTED, value)
        return value

    def sql_pattern(self) -> str:
        """A Postgres regular expression that finds candidate rows (confirmed by `holds`)."""
        return "|".join(_sql_words(text) for text in self.texts) or "a^"  # a^: matches nothing

    def _patterns(self) -> list[re.Pattern]:
        return [_pattern(text) for text in self.texts]

    def change_holds(self, change: Change) -> bool:
        """Whether a history line still holds the fact (as the new or the old line)."""
        return (change.fact_id in self.ids and not is_tombstone(change.line)) or (
            change.old_fact_id in self.ids and not is_tombstone(change.old_line)
        )


def _pattern(text: str) -> re.Pattern:
    words = r"\s+".join(re.escape(word) for word in text.split())
    return re.compile(rf"(?<!\w){words}(?!\w)", re.IGNORECASE)


def _sql_words(text: str) -> str:
    # ARE: a backslash before a non-alphanumeric character makes it literal.
    def literal(word: str) -> str:
        return "".join(c if c.isalnum() else "\\" + c for c in word)

    return r"\s+".join(literal(word) for word in text.split())


def target_resolve(*, fact_id: str | None = None, text: str | None = None) -> Target:
    """The fact named by id or by text. For an id, its texts are read from the files' index and
    the shards' history, so stored learner text can be searched for it too."""
    if text and text.strip():
        given = " ".join(text.split())
        body = _body(given)
        ids = {
            markdown.fact_identity(f"{tag}{t}")
            for t in {given, body}
            for tag in ("", *(f"[{name}] " for name in markdown.TAGS))
        }
        return Target(ids=frozenset(ids), texts=(body,))
    if not fact_id or not re.fullmatch(FACT_ID_PATTERN, fact_id.strip().lower()):
        raise InvalidFact("Say which fact: give its id (16 hex digits) or its text.")
    ids = frozenset({fact_id.strip().lower()})
    index_sync(scopes=all_scopes(memory_root()))
    bodies = set(Fact.objects.filter(fact_id__in=ids).values_list("text", flat=True))
    for shard in workspace_shards(memory_root()):
        for change in history_read(memory_root(), shard):
            if change.fact_id in ids:
                bodies.add(change.line)
            if change.old_fact_id in ids:
                bodies.add(change.old_line)
    texts = {_body(b) for b in bodies if b and not is_tombstone(b)}
    return Target(ids=ids, texts=tuple(sorted(t for t in texts if t)))


def target_ids(*, fact_id: str | None = None, text: str | None = None) -> frozenset[str]:
    """The identities a forget by id or by text looks for (no scan)."""
    if text and text.strip():
        return target_resolve(text=text).ids
    return frozenset({fact_id.strip().lower()}) if fact_id else frozenset()


def _body(line_or_text: str) -> str:
    fact = markdown.parse_line(line_or_text)
    text = fact.text if fact else line_or_text
    return markdown.FactLine(day=markdown.parse_date("2000-01-01"), text=text).body


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One place a fact still is: what kind of store, where in it, and a short note."""

    kind: str  # file | index | embedding | history | exchange | learning | reply
    where: str
    note: str = ""

    def __str__(self) -> str:
        return f"{self.kind:<9}  {self.where}" + (f"  ({self.note})" if self.note else "")


def occurrences_find(*, target: Target) -> list[Occurrence]:
    """Every remaining occurrence of the fact anywhere in the workspace: memory files, index
    rows, cached embeddings, history, stored exchanges, learning events, idempotent replies."""
    root = memory_root()
    index_sync(scopes=all_scopes(root))  # the index as every reader would see it now
    shards = workspace_shards(root)
    found = _in_files(root, shards, target) + _in_history(root, shards, target)
    found += [
        Occurrence("index", row.file.path, f"fact {row.fact_id}")
        for row in Fact.objects.filter(fact_id__in=target.ids).select_related("file")
    ]
    found += [
        Occurrence("embedding", f"{model}:{fact_id}")
        for model, fact_id in Embedding.objects.filter(fact_id__in=target.ids).values_list(
            "model", "fact_id"
        )
    ]
    return found + records_holding(target=target)


def _in_files(root: Path, shards: Iterable[Shard], target: Target) -> list[Occurrence]:
    found = []
    for shard in shards:
        for rel in shard_files(root, shard):
            raw = (root / rel).read_bytes().decode("utf-8", errors="replace")
            for number, line in enumerate(markdown.parse_text(raw), 1):
                if line.fact and line.fact.identity in target.ids:
                    found.append(
                        Occurrence("file", f"{rel}:{number}", f"fact {line.fact.identity}")
                    )
    return found


def _in_history(root: Path, shards: Iterable[Shard], target: Target) -> list[Occurrence]:
    return [
        Occurrence("history", f"{shard.rel}/history.jsonl", f"{change.op} at {change.at}")
        for shard in shards
        for change in history_read(root, shard)
        if target.change_holds(change)
    ]


def records_holding(
    *, target: Target, bots: Iterable[str] | None = None, person: str | None = None
) -> list[Occurrence]:
    """Stored learner records (exchanges, events, plans) and idempotent replies that still
    hold the fact's text (or, for events and plans, name its id), within bots/person if given."""
    return [
        Occurrence(kind, where)
        for kind, rows in _record_rows(target, bots=bots, person=person).items()
        for where, _ in rows
    ]


def _record_rows(target: Target, *, bots, person) -> dict[str, list[tuple[str, object]]]:
    """(where, row) pairs per kind of record that still hold the fact."""
    pattern = target.sql_pattern()
    by_text = Q()
    for name in EXCHANGE_TEXT_FIELDS:
        by_text |= Q(**{f"{name}__iregex": pattern})
    exchanges = Exchange.objects.annotate(
        plan_text=Cast("plan", TextField()), recalled_text=Cast("recalled", TextField())
    ).filter(
        by_text
        | Q(plan_text__iregex=pattern)
        | Q(recalled_text__iregex=pattern)
        | Q(*[Q(plan_text__contains=i) for i in target.ids], _connector=Q.OR)
    )
    events = LearningEvent.objects.filter(
        Q(text__iregex=pattern) | Q(detail__iregex=pattern) | Q(fact_id__in=target.ids)
    )
    replies = IdempotentReply.objects.annotate(body_text=Cast("body", TextField())).filter(
        body_text__iregex=pattern
    )
    if bots is not None:
        exchanges, events = exchanges.filter(bot__in=bots), events.filter(bot__in=bots)
        replies = replies.filter(bot__slug__in=bots)
    if person is not None:
        exchanges, events = exchanges.filter(person=person), events.filter(person=person)
        replies = replies.none()
    found: dict[str, list[tuple[str, object]]] = {
        "exchange": [], "learning": [], "reply": [], "proposal": [],
    }  # fmt: skip
    for row in _proposals(target, pattern, bots=bots, person=person):
        found["proposal"].append((f"upkeep proposal {row.pk} ({row.bot}, {row.action})", row))
    for row in exchanges:
        if exchange_holds(row, target):
            found["exchange"].append((f"exchange {row.pk} ({row.bot} in {row.room_id})", row))
    for row in events:
        if event_holds(row, target):
            found["learning"].append((f"learning event {row.pk} ({row.bot}, {row.kind})", row))
    for row in replies.select_related("bot"):
        if _json_holds(row.body, target):
            found["reply"].append((f"idempotent reply {row.pk} ({row.bot.slug})", row))
    return found


def _proposals(target: Target, pattern: str, *, bots, person) -> list[Proposal]:
    # Upkeep and synthesis proposals quote the facts they cite (evidence) and what they write.
    rows = Proposal.objects.annotate(
        evidence_text=Cast("evidence", TextField()), result_text=Cast("result", TextField())
    ).filter(
        Q(text__iregex=pattern)
        | Q(reason__iregex=pattern)
        | Q(verdict__iregex=pattern)
        | Q(evidence_text__iregex=pattern)
        | Q(result_text__iregex=pattern)
    )
    if bots is not None:
        rows = rows.filter(bot__in=bots)
    if person is not None:
        rows = rows.filter(scope_key=f"user:{person}")
    return [row for row in rows if proposal_holds(row, target)]


def proposal_holds(row: Proposal, target: Target) -> bool:
    """Whether an upkeep proposal's text, reason, verdict, evidence or result holds it."""
    return any(target.holds(getattr(row, name)) for name in PROPOSAL_TEXT_FIELDS) or any(
        _json_holds(getattr(row, name), target) for name in ("evidence", "result")
    )


def exchange_holds(row: Exchange, target: Target) -> bool:
    """Whether an exchange's message, reply, episode, error, recalled list or plan holds it."""
    return (
        any(target.holds(getattr(row, name)) for name in EXCHANGE_TEXT_FIELDS)
        or _json_holds(row.recalled, target)
        or _json_holds(row.plan, target)
    )


def event_holds(row: LearningEvent, target: Target) -> bool:
    """Whether a learning event's text or detail holds it (an event about it by id counts
    until its text is redacted)."""
    if row.fact_id in target.ids and row.text not in ("", REDACTED):
        return True
    return any(target.holds(getattr(row, name)) for name in EVENT_TEXT_FIELDS)


def _json_holds(value: object, target: Target) -> bool:
    if isinstance(value, str):
        return target.holds(value)
    if isinstance(value, list):
        return any(_json_holds(item, target) for item in value)
    if isinstance(value, dict):
        about = value.get("fact_id") in target.ids or value.get("id") in target.ids
        if about and value.get("text") not in (None, "", REDACTED):
            return True
        return any(_json_holds(item, target) for item in value.values())
    return False


def record_rows(*, target: Target, bots=None, person=None) -> dict[str, list]:
    """The rows `records_holding` lists, by kind (for `memstore.privacy.erase` to redact)."""
    return {
        kind: [row for _, row in rows]
        for kind, rows in _record_rows(target, bots=bots, person=person).items()
    }


def copies_outside(*, shards: Iterable[Shard], ids: Iterable[str]) -> list[StoredFact]:
    """Copies of these identities in the scopes of `shards` but in other bots' shards: what a
    forget of those shards could not touch, and may still reach the caller's prompt."""
    shards = list(shards)
    scopes = list(dict.fromkeys(s.scope for s in shards))
    index_sync(scopes=scopes)
    mine = {(str(s.scope), s.bot) for s in shards}
    rows = Fact.objects.filter(scope_key__in=[str(s) for s in scopes], fact_id__in=list(ids))
    copies = [stored_from_row(r) for r in rows.select_related("file")]
    return sorted(
        (c for c in copies if (c.scope, c.shard_bot) not in mine), key=lambda c: (c.scope, c.file)
    )
