"""What the learner already knows: the up-to-140 facts shown to the model, and the wider set a
new fact is compared with so that nothing known or just recalled is saved again.

Shown to the model: up to 100 profile facts, the 30 highest-ranked recent facts, and up
to 10 others sharing words with the exchange, from the scopes the learner writes in this room
(a direct room: the person's user memory and the bot's own; a group: the bot's own only — user
memory never enters a group's learning). Compared against, besides those: the projects in play
(what their prompt blocks hold) and whatever the bot reports as recalled, by id or by text.

What a read withholds (`memstore.rules.withheld`: facts on an excluded topic, lines the secret
detector flags) is never shown to the model, as it is never put in a prompt.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from django.db import connection

from memstore.facts.markdown import fact_identity
from memstore.facts.paths import Scope
from memstore.facts.ranking import RANK_ORDER_FIELDS, merge_newest, rank_order_sql
from memstore.facts.records import STORED_COLUMNS, StoredFact, stored_from_values
from memstore.index import index_sync
from memstore.index.language import language_in_use
from memstore.models import Fact
from memstore.rules.protected import fact_protected
from memstore.rules.withheld import Withholding, withholding_for

PROFILE_FACTS = 100
RECENT_FACTS = 30
WORD_FACTS = 10
PROJECT_PROFILE, PROJECT_RECENT = 25, 10  # what a project's prompt block holds
MAX_QUERY_WORDS = 24
_ID_RE = re.compile(r"[0-9a-f]{16}")
_WORD_RE = re.compile(r"[a-z0-9]+")
_QUERY_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]{2,}")
_STOPWORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "are",
        "but",
        "not",
        "you",
        "your",
        "with",
        "this",
        "that",
        "have",
        "has",
        "had",
        "was",
        "were",
        "will",
        "would",
        "can",
        "could",
        "should",
        "from",
        "they",
        "them",
        "their",
        "there",
        "then",
        "than",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "how",
        "all",
        "any",
        "about",
        "into",
        "out",
        "our",
        "ours",
        "just",
        "like",
        "also",
        "some",
        "been",
        "being",
        "its",
        "it's",
        "his",
        "her",
        "she",
        "him",
        "more",
        "most",
        "very",
        "please",
        "thanks",
        "thank",
        "okay",
        "yes",
        "yeah",
        "sure",
        "let",
        "lets",
        "get",
        "got",
        "one",
        "two",
        "now",
        "today",
    ]
)
JACCARD_MIN = 0.75
_NEGATIONS = frozenset({"not", "no", "never", "don", "doesn", "didn", "isn", "won", "cannot"})
RATIO_MIN = 0.85


@dataclass(frozen=True, slots=True)
class _Seen:
    text: str
    norm: str
    words: frozenset[str]


@dataclass
class KnownFacts:
    """The facts shown to the model, and everything a new fact must not duplicate.

    Word sets for near-duplicate checks are built on the first check, since most replies
    propose nothing."""

    shown: list[StoredFact] = field(default_factory=list)
    copies: list[StoredFact] = field(default_factory=list)  # every shard's copy of those facts
    texts: list[str] = field(default_factory=list)
    _by_id: dict[str, str] | None = None
    _seen: list[_Seen] | None = None

    def held_by(self, *, bot: str, scopes: Iterable[str]) -> dict[str, str]:
        """Shown facts with a copy in `bot`'s shard of one of these scopes: identity -> scope."""
        scopes = set(scopes)
        return {f.fact_id: f.scope for f in self.copies if f.shard_bot == bot and f.scope in scopes}

    def saved_on_purpose(self, *, bot: str, scopes: Iterable[str]) -> set[str]:
        """Shown facts with a copy in `bot`'s shards of these scopes that was saved on purpose
        (`memstore.rules.protected`): a `remove:` of one is only ever a proposal."""
        scopes = set(scopes)
        return {
            f.fact_id
            for f in self.copies
            if f.shard_bot == bot and f.scope in scopes and fact_protected(f.meta)
        }

    def copies_elsewhere(self, *, bot: str, scopes: Iterable[str]) -> dict[str, list[str]]:
        """Shown facts of these scopes that other bots' shards hold too: identity -> those
        bots (a removal from `bot`'s shards leaves their copies in prompts)."""
        scopes = set(scopes)
        found: dict[str, set[str]] = {}
        for f in self.copies:
            if f.shard_bot != bot and f.scope in scopes:
                found.setdefault(f.fact_id, set()).add(f.shard_bot)
        return {fact_id: sorted(bots) for fact_id, bots in found.items()}

    def quotable(self) -> dict[str, str]:
        """Identity of each text a `remove:` may quote (with and without its tag) -> fact id."""
        result = {}
        for fact in self.shown:
            result[fact_identity(fact.body)] = fact.fact_id
            result[fact.fact_id] = fact.fact_id
        return result

    def add(self, texts: Iterable[str]) -> None:
        """Count these texts as known too."""
        self.texts.extend(texts)
        self._by_id = self._seen = None

    def match(self, text: str) -> str | None:
        """The known text this one repeats (same identity or a near-duplicate), or None."""
        if self._by_id is None or self._seen is None:
            self._by_id = {fact_identity(t): t for t in self.texts}
            self._seen = [_seen(t) for t in self.texts]
        if (same := self._by_id.get(fact_identity(text))) is not None:
            return same
        this = _seen(text)
        for seen in self._seen:
            if this.norm == seen.norm:
                return seen.text
            # Word overlap is cheap and rules out most pairs; a different number or a negation
            # is a different fact ("flight on May 3" vs "May 4"); the character ratio then
            # catches reordered words that change the meaning ("decisions, then blockers").
            union = len(this.words | seen.words)
            if (
                union
                and len(this.words & seen.words) / union >= JACCARD_MIN
                and not _meaningful(this.words ^ seen.words)
                and SequenceMatcher(None, this.norm, seen.norm).ratio() >= RATIO_MIN
            ):
                return seen.text
        return None


def _meaningful(words: frozenset[str]) -> bool:
    return bool(words & _NEGATIONS) or any(char.isdigit() for word in words for char in word)


def _seen(text: str) -> _Seen:
    words = _WORD_RE.findall(text.lower())
    return _Seen(text=text, norm=" ".join(words), words=frozenset(words))


_FROM = "memstore_fact f JOIN memstore_memoryfile m ON m.id = f.file_id"
_VISIBLE = "f.scope_key = ANY(%(keys)s) AND f.visibility <> 'hidden'"
_KNOWN_SQL = f"""
WITH profile AS (
    SELECT {STORED_COLUMNS} FROM {_FROM} WHERE {_VISIBLE} AND f.tier = 'profile'
    ORDER BY {rank_order_sql()} LIMIT %(profile)s
), recent AS (
    SELECT {STORED_COLUMNS} FROM {_FROM} WHERE {_VISIBLE} AND f.tier <> 'profile'
    ORDER BY {rank_order_sql()} LIMIT %(recent)s
), sharing AS (
    SELECT {STORED_COLUMNS} FROM {_FROM}
    WHERE {_VISIBLE} AND f.search @@ to_tsquery(%(config)s::regconfig, %(words)s)
      AND f.fact_id NOT IN (SELECT fact_id FROM profile UNION ALL SELECT fact_id FROM recent)
    ORDER BY ts_rank(f.search, to_tsquery(%(config)s::regconfig, %(words)s)) DESC, {rank_order_sql()}
    LIMIT %(sharing)s
)
SELECT * FROM profile UNION ALL SELECT * FROM recent UNION ALL SELECT * FROM sharing
"""


def known_facts(
    *,
    scopes: list[Scope],
    projects: list[Scope],
    readable: list[Scope],
    exchange_text: str,
    recalled: list[str],
    withholding: Withholding | None = None,
) -> KnownFacts:
    """Read (after syncing) what the learner knows for one exchange; `withholding`: the rule
    for this room when the caller has read it already (else it is read here)."""
    index_sync(scopes=[*scopes, *projects])
    # One round trip: the top profile facts, the top recent ones, and the best matches among
    # the rest for the exchange's words.
    with connection.cursor() as cursor:
        cursor.execute(
            _KNOWN_SQL,
            {
                "keys": [str(s) for s in scopes],
                "profile": PROFILE_FACTS,
                "recent": RECENT_FACTS,
                "sharing": WORD_FACTS,
                "words": " | ".join(_query_words(exchange_text)),
                "config": language_in_use(),  # the word index's language
            },
        )
        copies = [stored_from_values(row) for row in cursor.fetchall()]
    people = [scope.name for scope in scopes if scope.kind == "user"]  # a direct room's person
    if withholding is None:
        withholding = withholding_for(person=people[0] if people else None)
    copies = withholding.shown(copies)
    known = KnownFacts(shown=merge_newest(copies), copies=copies)
    known.add(f.text for f in known.shown)
    known.add(f.body for f in known.shown if f.text.startswith("["))
    for project in projects:
        texts = (
            Fact.objects.filter(scope_key=str(project))
            .exclude(visibility="hidden")
            .order_by(*RANK_ORDER_FIELDS)
            .values_list("text", flat=True)
        )
        known.add(
            [
                *texts.filter(tier="profile")[:PROJECT_PROFILE],
                *texts.exclude(tier="profile")[:PROJECT_RECENT],
            ]
        )
    known.add(_recalled_texts(recalled, readable))
    return known


def _query_words(text: str) -> list[str]:
    words: dict[str, None] = {}
    for word in _QUERY_WORD_RE.findall(text):
        lowered = word.lower()
        if lowered not in _STOPWORDS:
            words[lowered] = None
        if len(words) >= MAX_QUERY_WORDS:
            break
    return list(words)


def _recalled_texts(recalled: list[str], readable: list[Scope]) -> list[str]:
    ids = [r for r in recalled if _ID_RE.fullmatch(r)]
    texts = [r for r in recalled if not _ID_RE.fullmatch(r) and r.strip()]
    if ids:
        texts += Fact.objects.filter(
            scope_key__in=[str(s) for s in readable], fact_id__in=ids
        ).values_list("text", flat=True)
    return texts
