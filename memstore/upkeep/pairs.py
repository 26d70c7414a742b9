"""Candidate pairs of alike facts within one scope, found in bounded time and memory at any
store size: the search duplicates, contradictions and the health report share; and pairs about
one subject across a whole store (any scope, any tier), the contradictions' second search.

- By meaning, a scope of up to MATRIX_MAX facts: its unit vectors as one float32 matrix,
  multiplied in row blocks of at most BLOCK_CELLS similarities (16 MB) against the rows after
  them (each pair once). A larger scope (the products grow with the square of its size) takes
  as candidates the facts sharing a fact's two rarest words, at most PAIR_HOLDERS each, and
  computes only their cosines. Either way each fact keeps its PER_FACT most alike partners
  above the floor, so a store of look-alike sentences yields a few pairs a fact, never millions.
- By words (facts without a vector, or no model): candidates share one of a fact's RARE_WORDS
  rarest words held by at most WORD_HOLDERS facts (a name in half the store makes no
  candidates); their overlap is counted on hashed word bitsets, vectorised, and only pairs
  above the floor are checked exactly.
- By subject (`alike_by_subject`): facts that share a rare word that is not a value, each
  carrying values (numbers, times, names) that differ: "Prefers the standup at 9:30" and "The
  standup moved to 10:00 from December" overlap too little in words to be alike, yet are the
  shape of a contradiction. Each fact takes partners from its SUBJECT_WORDS rarest words held
  by at most SUBJECT_HOLDERS facts, at most PER_FACT of them.

Pure: no I/O, no Django. Does not judge a pair (see `duplicates.judge`, `contradictions`).
"""

import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from memstore.facts.records import StoredFact

PER_FACT = 8  # most alike partners kept per fact
BLOCK_CELLS = 4_000_000  # similarities computed at once (float32: 16 MB)
RARE_WORDS = 3  # a fact's rarest words that make its word candidates
WORD_HOLDERS = 50  # a word in more facts of the scope than this makes no candidates
BITS = 1024  # hashed word bitset per fact (16 uint64)
PAIR_CHUNK = 200_000  # word candidate pairs scored at once
MATRIX_MAX = 2_000  # facts of one scope compared all against all; larger scopes by candidates
VECTOR_CHUNK = 20_000  # candidate pairs whose cosines are computed at once (2 x 30 MB)
PAIR_HOLDERS = 200  # candidates a fact takes from the facts sharing its two rarest words
SUBJECT_HOLDERS = 20  # a word more facts of the store hold names no subject ("meeting")
SUBJECT_WORDS = 2  # a fact's rarest words that may name its subject

Scored = tuple[StoredFact, StoredFact, float, str]  # first, second, score, by


def unique_facts(group: Sequence[StoredFact]) -> list[StoredFact]:
    """One fact per identity (readers merge copies in two files of a scope: the newest
    stands), in identity order."""
    seen: dict[str, StoredFact] = {}
    for fact in group:
        if fact.fact_id not in seen or fact.day > seen[fact.fact_id].day:
            seen[fact.fact_id] = fact
    return sorted(seen.values(), key=lambda f: f.fact_id)


def alike_by_meaning(
    group: list[StoredFact],
    matrix: np.ndarray,
    floor: float,
    *,
    per_fact: int = PER_FACT,
    block_cells: int = BLOCK_CELLS,
    word_sets: list[frozenset[str]] | None = None,
    min_words: float = 0.0,
) -> list[Scored]:
    """Pairs (i < j) of `group` whose rows of `matrix` (unit vectors) have cosine >= floor,
    each fact's `per_fact` best partners after it; with `word_sets`, only pairs whose words
    overlap about `min_words` or more (a hashed, vectorised check that spares judging the
    many pairs alike in meaning but not in words)."""
    n = len(group)
    found: list[Scored] = []
    if n < 2:
        return found
    bits = sizes = None
    if word_sets is not None and min_words > 0:
        bits = np.stack([_bitset(words) for words in word_sets])
        sizes = np.array([len(w) for w in word_sets], dtype=np.int32)
    rows = max(16, block_cells // n)
    for start in range(0, n - 1, rows):
        stop = min(n, start + rows)
        block = matrix[start:stop] @ matrix[start:].T  # columns start.. (pairs after i only)
        # Column c of the block is fact start + c; a pair counts once, with its second later.
        rr, cc = np.nonzero(block >= floor)
        later = cc > rr
        rr, cc = rr[later], cc[later]
        scores = block[rr, cc]
        del block
        if len(rr) > per_fact:  # each fact's `per_fact` best partners: sort by row, best first
            order = np.lexsort((-scores, rr))
            rr, cc, scores = rr[order], cc[order], scores[order]
            first = np.searchsorted(rr, rr, side="left")
            keep = np.arange(len(rr)) - first < per_fact
            rr, cc, scores = rr[keep], cc[keep], scores[keep]
        if bits is not None and len(rr):
            a, b = rr + start, cc + start
            common = np.bitwise_count(bits[a] & bits[b]).sum(axis=1, dtype=np.int32)
            near = common / np.maximum(sizes[a] + sizes[b] - common, 1) >= min_words - 0.1
            rr, cc, scores = rr[near], cc[near], scores[near]
        for r, c, score in zip(rr.tolist(), cc.tolist(), scores.tolist(), strict=True):
            found.append((group[start + r], group[start + c], float(score), "meaning"))
    return found


def alike_by_meaning_large(
    group: list[StoredFact],
    matrix: np.ndarray,
    floor: float,
    word_sets: list[frozenset[str]],
    *,
    per_fact: int = PER_FACT,
) -> list[Scored]:
    """`alike_by_meaning` for a scope too large to compare all against all (the products grow
    with the square of its size: 45,000 facts took 100 s on a loaded box): candidates are the
    facts sharing a fact's two rarest words (a duplicate shares most of its words, a
    contradiction its subject), at most PAIR_HOLDERS each, and only their cosines are
    computed. A pair that shares neither rare word is not found."""
    pairs = _rare_pair_candidates(word_sets)
    if not len(pairs):
        return []
    kept_a, kept_b, kept_s = [], [], []
    for start in range(0, len(pairs), VECTOR_CHUNK):
        a, b = pairs[start : start + VECTOR_CHUNK, 0], pairs[start : start + VECTOR_CHUNK, 1]
        cosines = np.einsum("ij,ij->i", matrix[a], matrix[b])
        near = cosines >= floor
        kept_a.append(a[near])
        kept_b.append(b[near])
        kept_s.append(cosines[near])
    rr, cc, scores = np.concatenate(kept_a), np.concatenate(kept_b), np.concatenate(kept_s)
    order = np.lexsort((-scores, rr))
    rr, cc, scores = rr[order], cc[order], scores[order]
    keep = np.arange(len(rr)) - np.searchsorted(rr, rr, side="left") < per_fact
    return [
        (group[r], group[c], float(score), "meaning")
        for r, c, score in zip(
            rr[keep].tolist(), cc[keep].tolist(), scores[keep].tolist(), strict=True
        )
    ]


def _rare_pair_candidates(word_sets: list[frozenset[str]]) -> np.ndarray:
    holders: dict[str, list[int]] = defaultdict(list)
    for i, words in enumerate(word_sets):
        for word in words:
            holders[word].append(i)
    arrays = {word: np.array(held, dtype=np.int64) for word, held in holders.items()}
    chunks = []
    for i, words in enumerate(word_sets):
        rare = sorted(words, key=lambda w: (len(holders[w]), w))[:2]
        if not rare:
            continue
        others = arrays[rare[0]]
        if len(rare) == 2:
            others = np.intersect1d(others, arrays[rare[1]], assume_unique=True)
        others = others[others > i][:PAIR_HOLDERS]
        if len(others):
            chunks.append(np.stack([np.full(len(others), i, dtype=np.int64), others], 1))
    if not chunks:
        return np.empty((0, 2), dtype=np.int64)
    return np.concatenate(chunks)


def alike_by_words(
    group: list[StoredFact],
    word_sets: list[set[str]],
    floor: float,
    *,
    exact: Callable[[set[str], set[str]], float],
    per_fact: int = PER_FACT,
) -> list[Scored]:
    """Pairs of `group` whose word sets overlap (Jaccard) by at least `floor`, among the
    candidates that share a rare word; `exact` scores a pair that passed the hashed check."""
    pairs = _word_candidates(word_sets)
    if not len(pairs):
        return []
    bits = np.stack([_bitset(words) for words in word_sets])
    sizes = np.array([len(w) for w in word_sets], dtype=np.int32)
    kept: list[tuple[int, int, float]] = []
    for start in range(0, len(pairs), PAIR_CHUNK):
        a, b = pairs[start : start + PAIR_CHUNK, 0], pairs[start : start + PAIR_CHUNK, 1]
        common = np.bitwise_count(bits[a] & bits[b]).sum(axis=1, dtype=np.int32)
        # Hashed, so a rough count (1024 bits, sentence-length texts: collisions are rare); a
        # margin below the floor keeps the pairs a collision undercounts, checked exactly next.
        union = np.maximum(sizes[a] + sizes[b] - common, 1)
        near = common / union >= floor - 0.1
        for i, j in zip(a[near].tolist(), b[near].tolist(), strict=True):
            score = exact(word_sets[i], word_sets[j])
            if score >= floor:
                kept.append((i, j, score))
    kept.sort(key=lambda t: -t[2])
    partners: dict[int, int] = defaultdict(int)
    found: list[Scored] = []
    for i, j, score in kept:
        if partners[i] < per_fact:
            partners[i] += 1
            found.append((group[i], group[j], score, "words"))
    return found


def _word_candidates(word_sets: list[set[str]]) -> np.ndarray:
    holders: dict[str, list[int]] = defaultdict(list)
    for i, words in enumerate(word_sets):
        for word in words:
            holders[word].append(i)
    chunks = []
    for i, words in enumerate(word_sets):
        rare = sorted((len(holders[w]), w) for w in words if 1 < len(holders[w]) <= WORD_HOLDERS)
        for _, word in rare[:RARE_WORDS]:
            others = np.array(holders[word], dtype=np.int64)
            others = others[others > i]
            if len(others):
                chunks.append(np.stack([np.full(len(others), i, dtype=np.int64), others], 1))
    if not chunks:
        return np.empty((0, 2), dtype=np.int64)
    return np.unique(np.concatenate(chunks), axis=0)


def alike_by_subject(
    group: Sequence[StoredFact],
    word_sets: Sequence[frozenset[str]],
    value_sets: Sequence[frozenset[str]],
    *,
    per_fact: int = PER_FACT,
) -> list[Scored]:
    """Pairs of `group` (from any scopes and tiers) about one subject with different values:
    they share one of a fact's rarest words that is no value and that at most SUBJECT_HOLDERS
    facts hold, both carry values, and neither's values hold the other's (agreeing facts, or
    one adding a detail, are not asked about). Scored by word overlap, `per_fact` a fact."""
    holders: dict[str, list[int]] = defaultdict(list)
    for i, (words, values) in enumerate(zip(word_sets, value_sets, strict=True)):
        if values:
            for word in words - values:
                holders[word].append(i)
    found: list[Scored] = []
    for i, (words, values) in enumerate(zip(word_sets, value_sets, strict=True)):
        subjects = sorted(
            (len(holders[w]), w) for w in words - values if 1 < len(holders[w]) <= SUBJECT_HOLDERS
        )
        partners = dict.fromkeys(
            j for _, word in subjects[:SUBJECT_WORDS] for j in holders[word] if j > i
        )
        kept = 0
        for j in partners:
            other = value_sets[j]
            if group[i].fact_id == group[j].fact_id or values <= other or other <= values:
                continue
            overlap = len(words & word_sets[j]) / max(len(words | word_sets[j]), 1)
            found.append((group[i], group[j], overlap, "subject"))
            kept += 1
            if kept == per_fact:
                break
    return found


def _bitset(words: set[str]) -> np.ndarray:
    bits = np.zeros(BITS // 64, dtype=np.uint64)
    for word in words:
        h = zlib.crc32(word.encode()) % BITS
        bits[h // 64] |= np.uint64(1) << np.uint64(h % 64)
    return bits
