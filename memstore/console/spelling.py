"""Typos in the console's search: "budjet" finds "budget", "lisbn" finds "Lisbon".

The embedded Postgres has neither `pg_trgm` nor `fuzzystrmatch`, so the correction is done here:
each scope's vocabulary (the words of its facts, with how often each occurs) is held in this
process with a deletion index (every word and every word with one letter dropped, SymSpell's
trick), so a misspelt word finds its candidates by a few dictionary lookups whatever the size
of the memory; the best candidate is the nearest by edit distance (a swap of two neighbouring
letters counts as one edit), then the most frequent. A scope's vocabulary is rebuilt only when
one grouped query over its file rows says something in it changed.

Only words of four letters or more are corrected, and never a word that is the start of a known
word (someone still typing "lisb" means "lisbon", and recall's substring fallback finds it).

Does not: search (see `memstore.console.search`), or write anything.
"""

import re
import threading
from collections import Counter
from dataclasses import dataclass

from django.db import connection

from memstore.facts.paths import Scope
from memstore.index import index_sync
from memstore.index.sync import sync_is_skipped

MIN_LENGTH = 4
_WORD_RE = re.compile(r"[^\W\d_]{2,}")
_lock = threading.Lock()


@dataclass(slots=True)
class Vocabulary:
    """One scope's words (lower-cased, with counts) and their one-deletion index."""

    stamp: tuple
    counts: Counter
    deletes: dict[str, set[str]]
    prefixes: set[str]


_cache: dict[str, Vocabulary] = {}


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def _build(stamp: tuple, texts: list[str]) -> Vocabulary:
    counts: Counter = Counter()
    for text in texts:
        counts.update(_WORD_RE.findall(text.lower()))
    # A plural's singular is a known word too ("budgets" makes "budjet" mean "budget").
    for word, n in list(counts.items()):
        if len(word) > MIN_LENGTH and word.endswith("s") and not word.endswith("ss"):
            counts[word[:-1]] += n
    deletes: dict[str, set[str]] = {}
    prefixes: set[str] = set()
    for word in counts:
        if len(word) < MIN_LENGTH - 1:
            continue
        deletes.setdefault(word, set()).add(word)
        for variant in _deletions(word):
            deletes.setdefault(variant, set()).add(word)
        prefixes.update(word[:n] for n in range(MIN_LENGTH, len(word)))
    return Vocabulary(stamp=stamp, counts=counts, deletes=deletes, prefixes=prefixes)


def vocabularies(scopes: list[Scope]) -> list[Vocabulary]:
    """The current vocabulary of each scope (rebuilding those whose files changed)."""
    keys = sorted({str(s) for s in scopes})
    if not keys:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT scope_key, count(*), coalesce(sum(fact_count), 0), max(synced_at)"
            " FROM memstore_memoryfile WHERE scope_key = ANY(%s) GROUP BY scope_key",
            [keys],
        )
        stamps = {row[0]: tuple(row[1:]) for row in cursor.fetchall()}
    stale = [k for k in stamps if k not in _cache or _cache[k].stamp != stamps[k]]
    if stale and sync_is_skipped():
        # Within a read's budget a large vocabulary is rebuilt behind the search, which uses
        # the one it had (or none) meanwhile: a spelling hint is not worth the wait.
        large = [k for k in stale if stamps[k][1] > INLINE_FACTS]
        if large:
            _rebuild_behind(large, stamps)
            stale = [k for k in stale if k not in large]
    if stale:
        _rebuild(stale, stamps)
    return [_cache[k] for k in keys if k in stamps and k in _cache]


INLINE_FACTS = 5_000  # facts a budgeted search reads into a vocabulary itself
_behind: set[str] = set()


def _rebuild(stale: list[str], stamps: dict[str, tuple]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT scope_key, text FROM memstore_fact WHERE scope_key = ANY(%s)", [stale]
        )
        texts: dict[str, list[str]] = {k: [] for k in stale}
        for key, text in cursor.fetchall():
            texts[key].append(text)
    built = {key: _build(stamps[key], texts[key]) for key in stale}
    with _lock:
        _cache.update(built)


def _rebuild_behind(keys: list[str], stamps: dict[str, tuple]) -> None:
    with _lock:
        keys = [k for k in keys if k not in _behind]
        _behind.update(keys)
    if not keys:
        return

    def rebuild() -> None:
        try:
            _rebuild(keys, stamps)
        finally:
            connection.close()  # this thread's own connection
            with _lock:
                _behind.difference_update(keys)

    threading.Thread(target=rebuild, name="memstore-vocabulary", daemon=True).start()


def distance(a: str, b: str) -> int:
    """Edit distance where a swap of two neighbouring letters counts as one edit."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def _known(word: str, vocabs: list[Vocabulary]) -> bool:
    return any(word in v.counts or word in v.prefixes for v in vocabs)


def _nearest(word: str, vocabs: list[Vocabulary]) -> str | None:
    found: dict[str, int] = {}
    keys = _deletions(word) | {word}
    for vocab in vocabs:
        for key in keys:
            for candidate in vocab.deletes.get(key, ()):
                found[candidate] = found.get(candidate, 0) + vocab.counts[candidate]
    scored = [
        (distance(word, candidate), -count, candidate)
        for candidate, count in found.items()
        if abs(len(candidate) - len(word)) <= 1
    ]
    scored = [s for s in scored if s[0] <= (1 if len(word) < 8 else 2)]
    return min(scored)[2] if scored else None


def query_corrected(query: str, scopes: list[Scope]) -> str:
    """The query with each unknown word of four letters or more replaced by the nearest known
    word of these scopes; "" when nothing needed correcting (or nothing close was found)."""
    words = _WORD_RE.findall(query.lower())
    unknown = [w for w in words if len(w) >= MIN_LENGTH]
    if not unknown:
        return ""
    index_sync(scopes=scopes)  # the vocabulary is read from the index
    vocabs = vocabularies(scopes)
    fixes = {}
    for word in unknown:
        if not _known(word, vocabs) and (near := _nearest(word, vocabs)):
            fixes[word] = near
    if not fixes:
        return ""
    return re.sub(r"[^\W\d_]+", lambda m: fixes.get(m[0].lower(), m[0]), " ".join(query.split()))
