"""The reference design's recall, kept faithfully as the baseline `recall_eval` measures against.

Lower-case; words are runs of four or more letters or digits, minus 44 stopwords; facts are
ranked by how many distinct query words they share, then by date (newest first); only when no
fact shares a word, a literal substring match of the whole query. Pure: no I/O.
"""

import re
from collections.abc import Iterable

from memstore.facts.records import StoredFact

STOPWORDS = frozenset(
    [
        "that",
        "this",
        "with",
        "from",
        "they",
        "them",
        "then",
        "than",
        "what",
        "when",
        "where",
        "which",
        "will",
        "would",
        "could",
        "should",
        "have",
        "been",
        "being",
        "about",
        "just",
        "like",
        "your",
        "does",
        "were",
        "also",
        "into",
        "over",
        "only",
        "some",
        "more",
        "most",
        "very",
        "much",
        "here",
        "there",
        "their",
        "these",
        "those",
        "because",
        "while",
        "after",
        "before",
        "user",
    ]
)
_WORD_RE = re.compile(r"[^\W_]{4,}")


def words_of(text: str) -> set[str]:
    """The distinct words of a text that the reference design counts."""
    return set(_WORD_RE.findall(text.lower())) - STOPWORDS


def words_search(facts: Iterable[StoredFact], query: str) -> list[StoredFact]:
    """Facts sharing words with the query, most shared first, then newest; else the facts that
    contain the query as a substring, newest first."""
    facts = list(facts)
    wanted = words_of(query)
    scored = [(len(wanted & words_of(fact.text)), fact) for fact in facts]
    found = [(shared, fact) for shared, fact in scored if shared > 0]
    if found:
        found.sort(key=lambda pair: (-pair[0], -pair[1].day.toordinal()))
        return [fact for _, fact in found]
    needle = query.strip().lower()
    if not needle:
        return []
    hits = [fact for fact in facts if needle in fact.text.lower()]
    return sorted(hits, key=lambda fact: -fact.day.toordinal())
