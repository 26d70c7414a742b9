"""Near-duplicate facts: pairs found by embedding similarity and word overlap, within one scope.

A pair's score is the cosine of its two vectors (the embedding model recall uses) or, with no
model, the overlap of their words. A pair whose sides each hold a "value" the other lacks (a
number, a time, a name: "in Lisbon" / "in Porto", "9:30" / "10:00") is never a duplicate, however
close: it is a candidate contradiction instead. Nor is a pair that differs in meaning by the
one rule every merge obeys (`memstore.upkeep.meaning`: a negation, a number, a date, a name or
a verb of state one side holds and the other lacks). Two levels, chosen on the labelled set in
tests/memstore/upkeep/labelled_pairs.py: 60 written pairs and 50 pairs of real LoCoMo facts
that embed alike (same person, same topic; most say different things). docs/benchmarks.md has
the table:

- `certain`: likely, and one fact's content words are all in the other's (a light edit: case,
  punctuation, an article, a word added). Upkeep merges these on its own: no false merge on
  the set, and no runaway on stores of look-alike sentences;
- `likely`: cosine >= UPKEEP_SIMILAR_COSINE *and* word overlap >= MEANING_WORDS (or, without a model,
  overlap >= UPKEEP_SIMILAR_WORDS), and not one or two words swapped for others (`swapped`: "prefers
  sushi" / "prefers ramen" is a changed value). The health report suggests these merges to a person; they are never
  applied automatically. Cosine alone is not enough on real text: bge-small puts two different
  facts about one person's one topic at 0.85-0.95 ("Caroline attended a pride parade last week"
  / "... a few weeks ago"), so 0.82 alone suggested 3,068 merges on 2,541 LoCoMo facts.

Pure scoring, plus the candidate search of `memstore.upkeep.pairs` over a store's vectors; no
writes.
"""

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

import numpy as np
from django.conf import settings

from memstore.facts.markdown import FactLine
from memstore.facts.records import StoredFact
from memstore.upkeep.meaning import differences
from memstore.upkeep.meaning import features_clear as meaning_clear
from memstore.upkeep.pairs import (
    MATRIX_MAX,
    PER_FACT,
    Scored,
    alike_by_meaning,
    alike_by_meaning_large,
    alike_by_words,
    unique_facts,
)

# The `likely` floors are settings (UPKEEP_SIMILAR_COSINE 0.90 with bge-small,
# UPKEEP_SIMILAR_WORDS 0.65 by words alone), measured on the labelled set (module docstring).
MEANING_WORDS = 0.45  # the word overlap a match by meaning must also have

_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "with",
    ]
)
# Capitalised first words that are not names.
_OPENERS = frozenset(
    [
        "a",
        "an",
        "the",
        "our",
        "we",
        "my",
        "his",
        "her",
        "their",
        "this",
        "that",
        "these",
        "those",
        "it",
        "i",
        "you",
        "he",
        "she",
        "they",
        "there",
        "here",
        "is",
        "has",
        "was",
        "had",
        "have",
        "do",
        "does",
        "did",
        "can",
        "will",
        "would",
        "should",
        "must",
        "may",
        "no",
        "not",
        "every",
        "each",
        "all",
        "some",
        "any",
        "one",
        "two",
        "new",
        "old",
        "team",
        "weekly",
        "daily",
        "monthly",
    ]
)
_WORD_RE = re.compile(r"[\w]+(?:[:.'-][\w]+)*")


@dataclass(frozen=True, slots=True)
class Pair:
    """Two facts of one scope and how alike they are; `conflict`: each holds a value the other
    lacks (never a duplicate); `certain`: alike enough for upkeep to merge on its own."""

    first: StoredFact
    second: StoredFact
    score: float
    by: str  # "meaning" (cosine) | "words" (overlap)
    conflict: bool
    certain: bool


# Each text's features are computed once per pass, however many pairs it is in (a store of
# 50,000 facts has hundreds of thousands of candidate pairs); bounded, so a worker stays small.
_CACHE = 131_072


def word_list(text: str) -> list[str]:
    """The text's content words in order, lower-cased, a plural 's' dropped."""
    return list(_word_tuple(text))


@lru_cache(maxsize=_CACHE)
def _word_tuple(text: str) -> tuple[str, ...]:
    found = []
    for word in _WORD_RE.findall(text.lower()):
        if word in _STOP:
            continue
        plural = len(word) > 3 and word.endswith("s") and not word.endswith("ss")
        found.append(word[:-1] if plural else word)
    return tuple(found)


@lru_cache(maxsize=_CACHE)
def words(text: str) -> frozenset[str]:
    """The text's content words as a set (see `word_list`)."""
    return frozenset(_word_tuple(text))


@lru_cache(maxsize=_CACHE)
def values(text: str) -> frozenset[str]:
    """Numbers, times and names in the text (a capitalised word that does not open it)."""
    found = set()
    for i, token in enumerate(_WORD_RE.findall(text)):
        if any(c.isdigit() for c in token) or (i > 0 and token[0].isupper()):
            token = token.lower()
            found.add(token[:-1] if len(token) > 3 and token.endswith("s") else token)
    return frozenset(found)


@lru_cache(maxsize=_CACHE)
def body_of(text: str) -> str:
    """A fact text without its [note]/[episode] tag."""
    return FactLine(day=date.min, text=text).body


def overlap(a: str, b: str) -> float:
    """Jaccard overlap of the two texts' content words (0-1)."""
    wa, wb = words(a), words(b)
    return len(wa & wb) / len(wa | wb) if wa or wb else 0.0


@lru_cache(maxsize=_CACHE)
def subject(text: str) -> str:
    """The name a text opens with ("Gina lost her job", "Jon's favourite style"), lower-cased,
    or "": a capitalised first word that is not a common opener nor a verb ("Prefers")."""
    tokens = _WORD_RE.findall(text)
    if not tokens or not tokens[0][:1].isupper():
        return ""
    first = tokens[0]
    name = first[:-2] if first.endswith("'s") else first
    if name.lower() in _OPENERS or (name.endswith("s") and name is first):
        return ""
    return name.lower()


def conflicting(a: str, b: str) -> bool:
    """Whether each text holds a value the other lacks, or each is about someone the other
    does not name ("Gina lost her job" / "Jon lost his job")."""
    va, vb = values(a), values(b)
    if va - vb and vb - va:
        return True
    sa, sb = subject(a), subject(b)
    return bool(sa and sb and sa != sb) and sa not in b.lower() and sb not in a.lower()


def thresholds(by: str) -> float:
    """The `likely` floor for scoring by "meaning" or by "words" (settings may override)."""
    if by == "meaning":
        return settings.UPKEEP_SIMILAR_COSINE
    return settings.UPKEEP_SIMILAR_WORDS


def contained(a: str, b: str) -> bool:
    """Whether one text's content words (counted: "data ... data" holds two) are all in the
    other's: a light edit (case, punctuation, an article, a word added)."""
    ca, cb = _counts(a), _counts(b)
    return bool(ca and cb) and (ca <= cb or cb <= ca)


@lru_cache(maxsize=_CACHE)
def _counts(text: str) -> Counter:
    return Counter(_word_tuple(text))  # read only: shared by every pair the text is in


def swapped(a: str, b: str) -> bool:
    """Whether one or two words of each text stand where the other has others, counted ("Ana
    prefers sushi for lunch" / "... ramen ...", "a goldfish and two goldfish" / "a goldfish
    and two tortoises": the shape of a changed value, not of a rewording; bge-small puts such
    pairs at cosine 0.86-0.95), or the same words stand in another order, the small words
    between them counted ("prefers climbing to gardening" / "... gardening to climbing": two
    words trade places, not a block moved as in "Dan works from Berlin on Mondays" / "On
    Mondays Dan works from Berlin")."""
    ca, cb = _counts(a), _counts(b)
    mine, theirs = sum((ca - cb).values()), sum((cb - ca).values())
    if 1 <= mine <= 2 and 1 <= theirs <= 2:
        return True
    ta, tb = _order_tuple(a), _order_tuple(b)
    if len(ta) != len(tb) or Counter(ta) != Counter(tb):
        return False
    moved = [i for i, (x, y) in enumerate(zip(ta, tb, strict=True)) if x != y]
    return len(moved) == 2 and moved[1] - moved[0] > 1


@lru_cache(maxsize=_CACHE)
def _order_tuple(text: str) -> tuple[str, ...]:
    # Plurals folded as in `word_list` ("two hamsters" / "a hamster" is one word moved).
    return tuple(
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
        for w in _WORD_RE.findall(text.lower())
        if w not in ("a", "an", "the")
    )


def features_clear() -> None:
    """Forget the texts' cached features (a pass's end: a worker keeps no store in memory)."""
    for cached in (_word_tuple, words, values, body_of, subject, _counts, _order_tuple):
        cached.cache_clear()
    meaning_clear()


def likely(a: str, b: str, score: float, by: str, floor: float | None = None) -> bool:
    """Whether two texts with this score are at least a likely duplicate (`floor`: the
    threshold for `by`, when the caller has it at hand)."""
    floor = thresholds(by) if floor is None else floor
    if score < floor or (by == "meaning" and overlap(a, b) < MEANING_WORDS):
        return False
    return not swapped(a, b) and not conflicting(a, b) and not differences(a, b)


def judge(
    first: StoredFact, second: StoredFact, score: float, by: str, floor: float | None = None
) -> Pair | None:
    """The pair if it is at least a likely duplicate, else None."""
    a, b = body_of(first.text), body_of(second.text)
    if not likely(a, b, score, by, floor):
        return None
    certain = contained(a, b)
    return Pair(first, second, round(float(score), 4), by, False, certain)


def duplicates_find(
    facts: Sequence[StoredFact],
    vectors: dict[str, np.ndarray] | None = None,
    *,
    scored: list[Scored] | None = None,
) -> list[Pair]:
    """Likely duplicate pairs among these facts, within each scope, best first. With `vectors`
    (fact id -> unit vector) by meaning; facts without a vector, and every fact when there are
    no vectors, by words. `scored`: candidate pairs already found (at floors no higher)."""
    floors = {"meaning": thresholds("meaning"), "words": thresholds("words")}
    if scored is None:
        scored = similar_pairs(
            facts, vectors, floors=(floors["meaning"], floors["words"]), min_words=MEANING_WORDS
        )
    pairs = [
        pair
        for first, second, score, by in scored
        if score >= floors[by] and (pair := judge(first, second, score, by, floors[by]))
    ]
    return sorted(pairs, key=lambda p: (-p.score, p.first.fact_id, p.second.fact_id))


def similar_pairs(
    facts: Sequence[StoredFact],
    vectors: dict[str, np.ndarray] | None,
    *,
    floors: tuple[float, float],
    per_fact: int = PER_FACT,
    min_words: float = 0.0,
) -> list[Scored]:
    """Pairs of one scope scoring at least `floors` (cosine, word overlap): each fact's
    `per_fact` most alike partners (see `memstore.upkeep.pairs`); by meaning, only pairs whose
    words overlap about `min_words` or more."""
    by_scope: dict[str, list[StoredFact]] = defaultdict(list)
    for fact in facts:
        by_scope[fact.scope].append(fact)
    found: list[Scored] = []
    for group in by_scope.values():
        group = unique_facts(group)
        with_vector = [f for f in group if vectors and f.fact_id in vectors]
        without = [f for f in group if not (vectors and f.fact_id in vectors)]
        if with_vector:
            matrix = np.stack([vectors[f.fact_id] for f in with_vector]).astype(np.float32)  # type: ignore[index]
            large = len(with_vector) > MATRIX_MAX
            sets = [words(body_of(f.text)) for f in with_vector] if min_words or large else None
            if large:
                found += alike_by_meaning_large(
                    with_vector, matrix, floors[0], sets or [], per_fact=per_fact
                )
            else:
                found += alike_by_meaning(
                    with_vector,
                    matrix,
                    floors[0],
                    per_fact=per_fact,
                    word_sets=sets,
                    min_words=min_words,
                )
            del matrix
        if without:
            sets = [words(body_of(f.text)) for f in without]
            found += alike_by_words(without, sets, floors[1], exact=_jaccard, per_fact=per_fact)
    return found


def _jaccard(a: set[str], b: set[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0
