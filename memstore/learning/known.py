"""What the learner already knows: the up-to-140 facts shown to the model, and the wider set a
new fact is compared with so that nothing known or just recalled is saved again.

Shown to the model (SPEC §7): up to 100 profile facts, the 30 highest-ranked recent facts, and up
to 10 others sharing words with the exchange, from the scopes the learner writes in this room
(a direct room: the person's user memory and the bot's own; a group: the bot's own only — user
memory never enters a group's learning). Compared against, besides those: the projects in play
(what their prompt blocks hold) and whatever the bot reports as recalled, by id or by text.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db.models import F

from memstore.index import index_sync
from memstore.markdown import fact_identity
from memstore.models import Fact
from memstore.paths import Scope
from memstore.ranking import merge_newest
from memstore.records import StoredFact, stored_from_row

PROFILE_FACTS = 100
RECENT_FACTS = 30
WORD_FACTS = 10
PROJECT_PROFILE, PROJECT_RECENT = 25, 10  # what a project's prompt block holds (SPEC §5.2)
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
RATIO_MIN = 0.85


@dataclass(frozen=True, slots=True)
class _Seen:
    text: str
    norm: str
    words: frozenset[str]


@dataclass
class KnownFacts:
    """The facts shown to the model, and everything a new fact must not duplicate."""

    shown: list[StoredFact] = field(default_factory=list)
    seen: list[_Seen] = field(default_factory=list)
    seen_ids: set[str] = field(default_factory=set)

    def quotable(self) -> dict[str, str]:
        """Identity of each text a `remove:` may quote (with and without its tag) -> fact id."""
        result = {}
        for fact in self.shown:
            result[fact_identity(fact.body)] = fact.fact_id
            result[fact.fact_id] = fact.fact_id
        return result

    def add(self, texts: Iterable[str]) -> None:
        """Count these texts as known too."""
        for text in texts:
            self.seen_ids.add(fact_identity(text))
            words = _WORD_RE.findall(text.lower())
            self.seen.append(_Seen(text=text, norm=" ".join(words), words=frozenset(words)))

    def match(self, text: str) -> str | None:
        """The known text this one repeats (same identity or a near-duplicate), or None."""
        if fact_identity(text) in self.seen_ids:
            return text
        words = _WORD_RE.findall(text.lower())
        norm, bag = " ".join(words), frozenset(words)
        for seen in self.seen:
            if norm == seen.norm:
                return seen.text
            # Word overlap is cheap and rules out most pairs; the character ratio then catches
            # reordered words that change the meaning ("decisions, then blockers").
            union = len(bag | seen.words)
            if (
                union
                and len(bag & seen.words) / union >= JACCARD_MIN
                and SequenceMatcher(None, norm, seen.norm).ratio() >= RATIO_MIN
            ):
                return seen.text
        return None


def known_facts(
    *,
    scopes: list[Scope],
    projects: list[Scope],
    readable: list[Scope],
    exchange_text: str,
    recalled: list[str],
) -> KnownFacts:
    """Read (after syncing) what the learner knows for one exchange."""
    index_sync(scopes=[*scopes, *projects])
    keys = [str(s) for s in scopes]
    visible = Fact.objects.filter(scope_key__in=keys).exclude(visibility="hidden")
    profile = _rows(visible.filter(tier="profile").order_by("-rank", "fact_id")[:PROFILE_FACTS])
    recent = _rows(visible.exclude(tier="profile").order_by("-rank", "fact_id")[:RECENT_FACTS])
    shown = merge_newest([*profile, *recent])
    words = _query_words(exchange_text)
    if words:
        query = SearchQuery(" | ".join(words), search_type="raw", config="english")
        sharing = (
            visible.filter(search=query)
            .exclude(fact_id__in=[f.fact_id for f in shown])
            .annotate(score=SearchRank(F("search"), query))
            .order_by("-score", "-rank")[:WORD_FACTS]
        )
        shown = merge_newest([*shown, *_rows(sharing)])
    known = KnownFacts(shown=shown)
    known.add(f.text for f in shown)
    known.add(f.body for f in shown if f.body != f.text)
    for project in projects:
        rows = Fact.objects.filter(scope_key=str(project)).exclude(visibility="hidden")
        known.add(
            [
                *rows.filter(tier="profile")
                .order_by("-rank")
                .values_list("text", flat=True)[:PROJECT_PROFILE],
                *rows.exclude(tier="profile")
                .order_by("-rank")
                .values_list("text", flat=True)[:PROJECT_RECENT],
            ]
        )
    known.add(_recalled_texts(recalled, readable))
    return known


def _rows(queryset) -> list[StoredFact]:
    return [stored_from_row(r) for r in queryset.annotate(file_path=F("file__path"))]


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
