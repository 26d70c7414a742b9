"""What is being erased: a fact named by its identity or by its text (`target_resolve`), and the
rules that say whether some stored text still holds it and how it is redacted.

A *copy* is a fact line of one of the target's identities, a history line that still holds its
text (a tombstone does not), or free text (an exchange, a note, a reply body...) that contains
one of its texts, case and spacing ignored. `Occurrence` is one place a copy was found.
This module only decides; `memstore.privacy.stores` lists the places and looks in them.
"""

import re
from dataclasses import dataclass

from memstore.errors import InvalidFact
from memstore.facts import markdown
from memstore.facts.activity import workspace_shards
from memstore.facts.history import Change, history_read
from memstore.facts.paths import all_scopes, memory_root
from memstore.index import index_sync
from memstore.models import Fact
from memstore.vocabulary import FACT_ID_PATTERN

REDACTED = "[erased]"
_TOMBSTONE_RE = re.compile(r"^\[erased \d{4}-\d{2}-\d{2} by [^\]]*\]$")


def tombstone(*, day: str, by: str) -> str:
    """What an erased history line says instead of the fact: when and by whom."""
    return f"[erased {day} by {by or 'unknown'}]"


def is_tombstone(line: str) -> bool:
    """Whether a history line's text is an erase tombstone."""
    return bool(_TOMBSTONE_RE.fullmatch(line))


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One place a fact still is: what kind of store, where in it, and a short note."""

    kind: str  # one of memstore.privacy.stores.KINDS
    where: str
    note: str = ""

    def __str__(self) -> str:
        return f"{self.kind:<9}  {self.where}" + (f"  ({self.note})" if self.note else "")


@dataclass(frozen=True, slots=True)
class Target:
    """The fact being forgotten: its identities (with and without a tier tag) and the texts
    whose occurrences in stored free text count as copies."""

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

    def change_holds(self, change: Change) -> bool:
        """Whether a history line still holds the fact (as the new or the old line)."""
        return (change.fact_id in self.ids and not is_tombstone(change.line)) or (
            change.old_fact_id in self.ids and not is_tombstone(change.old_line)
        )

    def json_holds(self, value: object) -> bool:
        """Whether a JSON value holds the fact: a string containing its text, or an object
        naming one of its ids (`id`/`fact_id`) whose `text` is not yet redacted."""
        if isinstance(value, str):
            return self.holds(value)
        if isinstance(value, list):
            return any(self.json_holds(item) for item in value)
        if isinstance(value, dict):
            if self._about(value) and value.get("text") not in (None, "", REDACTED):
                return True
            return any(self.json_holds(item) for item in value.values())
        return False

    def json_redact(self, value: object) -> object:
        """The JSON value with the fact's text redacted, and the `text` of objects about it
        (by id) replaced by REDACTED."""
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, list):
            return [self.json_redact(item) for item in value]
        if isinstance(value, dict):
            redacted = {key: self.json_redact(item) for key, item in value.items()}
            if self._about(value) and "text" in value:
                redacted["text"] = REDACTED
            return redacted
        return value

    def _about(self, value: dict) -> bool:
        return value.get("fact_id") in self.ids or value.get("id") in self.ids

    def _patterns(self) -> list[re.Pattern]:
        return [_pattern(text) for text in self.texts]


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
    the shards' history, so stored free text can be searched for it too."""
    if text and text.strip():
        given = " ".join(text.split())
        body = body_of(given)
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
    texts = {body_of(b) for b in bodies if b and not is_tombstone(b)}
    return Target(ids=ids, texts=tuple(sorted(t for t in texts if t)))


def target_ids(*, fact_id: str | None = None, text: str | None = None) -> frozenset[str]:
    """The identities a forget by id or by text looks for (no scan)."""
    if text and text.strip():
        return target_resolve(text=text).ids
    return frozenset({fact_id.strip().lower()}) if fact_id else frozenset()


def body_of(line_or_text: str) -> str:
    """A line's or a text's body: without its date, metadata and tier tag."""
    fact = markdown.parse_line(line_or_text)
    text = fact.text if fact else line_or_text
    return markdown.FactLine(day=markdown.parse_date("2000-01-01"), text=text).body
