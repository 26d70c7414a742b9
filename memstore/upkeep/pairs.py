"""Candidate pairs of alike facts within one scope, found in bounded time and memory at any
store size: the search duplicates, contradictions and the health report share.

- By meaning: the scope's unit vectors as one float32 matrix, multiplied in row blocks of at
  most BLOCK_CELLS similarities (16 MB) against the rows after them (each pair once); per fact
  only its PER_FACT most alike partners above the floor are kept, so a store of look-alike
  sentences yields at most PER_FACT pairs a fact, never millions.
- By words (facts without a vector, or no model): candidates share one of a fact's RARE_WORDS
  rarest words held by at most WORD_HOLDERS facts (a name in half the store makes no
  candidates); their overlap is counted on hashed word bitsets, vectorised, and only pairs
  above the floor are checked exactly.

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
) -> list[Scored]:
    """Pairs (i < j) of `group` whose rows of `matrix` (unit vectors) have cosine >= floor,
    each fact's `per_fact` best partners after it."""
    n = len(group)
    found: list[Scored] = []
    if n < 2:
        return found
    rows = max(16, block_cells // n)
    for start in range(0, n - 1, rows):
        stop = min(n, start + rows)
        block = matrix[start:stop] @ matrix[start:].T  # columns start.. (pairs after i only)
        # Column c of the block is fact start + c: keep c > r (the pair's second comes later).
        r_idx = np.arange(stop - start)[:, None]
        block[np.arange(block.shape[1])[None, :] <= r_idx] = -np.inf
        block[block < floor] = -np.inf
        k = min(per_fact, block.shape[1])
        top = np.argpartition(-block, k - 1, axis=1)[:, :k]
        scores = np.take_along_axis(block, top, axis=1)
        rr, kk = np.nonzero(np.isfinite(scores))
        for r, c, score in zip(
            rr.tolist(), top[rr, kk].tolist(), scores[rr, kk].tolist(), strict=True
        ):
            found.append((group[start + r], group[start + c], float(score), "meaning"))
        del block
    return found


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


def _bitset(words: set[str]) -> np.ndarray:
    bits = np.zeros(BITS // 64, dtype=np.uint64)
    for word in words:
        h = zlib.crc32(word.encode()) % BITS
        bits[h // 64] |= np.uint64(1) << np.uint64(h % 64)
    return bits
