"""The lexical ranking of `lexical`, computed in this process over scope snapshots.

Owns: `word_rank`, which gives exactly what `lexical.lexical_search`'s statement gives (the
same BM25 scores to the last bit, the same tie order, the same `matched` count) from the posting
lists of `snapshot`, with no round trip: a few array operations per query term. Recall uses it
whenever the searched scopes fit in this process's snapshots; the statement stays for searches
too large to hold (and the tests hold the two to the same answers).

The arithmetic mirrors the SQL step by step: weights with the C library's `log` (as Postgres's
`ln`), each row's weights added in term order, then BM25's length normalisation in the
statement's operation order, all in float64.

Does not: find the terms (see `lexical.terms_from`), read the database, or fuse.
"""

import math
from dataclasses import dataclass
from datetime import date

import numpy as np

from memstore.recall.lexical import BM25_B, BM25_K1, LexicalHit, Term
from memstore.recall.snapshot import EXACT, Snapshot
from memstore.recall.top import best_rows


@dataclass(frozen=True, slots=True)
class WordRanking:
    """The best rows by words, and what it takes to count every fact that matched."""

    hits: list[LexicalHit]
    _parts: list["_Candidates"]

    def matched(self, also: set[str] = frozenset(), *, coverage: float = 0.0) -> int:
        """How many distinct facts passed the relevance floor (a score above zero: a word too
        common to count does not make a match; and at least `coverage` of the query's term
        weight) or are among `also` (identities found another way)."""
        codes = [
            part.snapshot.codes[part.rows[(part.scores > 0) & (part.coverage >= coverage)]]
            for part in self._parts
        ]
        codes.append(np.array([int(fact_id, 16) for fact_id in also], dtype=np.uint64))
        return len(np.unique(np.concatenate(codes)))


def word_rank(
    snapshots: list[Snapshot],
    terms: list[Term],
    *,
    facts: int,
    limit: int,
    include_hidden: bool = False,
) -> WordRanking:
    """Rows of these snapshots sharing any term, best first; `facts` is how many facts the
    searched files hold (BM25's collection size)."""
    parts = [_Candidates.of(snapshot, terms, include_hidden) for snapshot in snapshots]
    count = sum(len(part.rows) for part in parts)
    if not count:
        return WordRanking(hits=[], _parts=[])
    n = float(max(count, facts))
    avglen = max(sum(float(p.snapshot.lens[p.rows].sum()) for p in parts) / count, 1.0)
    dfs = [float(sum(len(p.holding[i]) for p in parts)) for i in range(len(terms))]
    weights = _weights(dfs, n)
    for part in parts:
        part.score(weights, avglen)
    return WordRanking(hits=_best(parts, limit), _parts=parts)


@dataclass(slots=True)
class _Candidates:
    """One snapshot's rows that share a term, and their scores (arrays over those rows only,
    so a search costs what it finds, not what the scope holds)."""

    snapshot: Snapshot
    holding: list[np.ndarray]  # rows holding term i
    rows: np.ndarray  # the candidates: rows holding any term, ascending
    scores: np.ndarray | None = None  # per candidate
    coverage: np.ndarray | None = None  # per candidate: share of the query's term weight held

    @classmethod
    def of(cls, snapshot: Snapshot, terms: list[Term], include_hidden: bool) -> "_Candidates":
        visible = None if include_hidden else ~snapshot.hidden
        holding = [_visible(snapshot.postings(_key(term)), visible) for term in terms]
        mask = np.zeros(snapshot.rows, dtype=bool)
        for rows in holding:
            mask[rows] = True
        return cls(snapshot=snapshot, holding=holding, rows=np.flatnonzero(mask))

    def score(self, weights: list[float], avglen: float) -> None:
        # Each row's weights added in term order, as the statement's sum of CASEs does.
        idf = np.zeros(self.snapshot.rows, dtype=np.float64)
        for holding, weight in zip(self.holding, weights, strict=True):
            idf[holding] += weight
        idf = idf[self.rows]
        total = sum(weights)
        self.coverage = idf / total if total > 0 else np.zeros(len(self.rows))
        lens = self.snapshot.lens[self.rows]
        self.scores = idf * (BM25_K1 + 1) / (1 + BM25_K1 * ((1 - BM25_B) + BM25_B * lens / avglen))


def _key(term: Term) -> str:
    return term.word if term.kind == "english" else EXACT + term.word


def _visible(rows: np.ndarray, visible: np.ndarray | None) -> np.ndarray:
    return rows if visible is None else rows[visible[rows]]


def _weights(dfs: list[float], n: float) -> list[float]:
    # A term in more than half the facts counts only when no rarer term is found at all.
    rare_found = any(0 < df <= n / 2 for df in dfs)
    return [
        math.log(1 + (n - df + 0.5) / (df + 0.5)) if df <= n / 2 or not rare_found else 0.0
        for df in dfs
    ]


def _best(parts: list[_Candidates], limit: int) -> list[LexicalHit]:
    """The `limit` best rows by (score, newer, identity, scope, shard, row id)."""
    found = [(part, np.flatnonzero(part.scores > 0)) for part in parts]
    scores = np.concatenate([part.scores[at] for part, at in found])
    days = np.concatenate([part.snapshot.days[part.rows[at]] for part, at in found])
    starts = np.cumsum([0] + [len(at) for _, at in found])
    pool = []
    best = best_rows(scores, days, limit)
    which = np.searchsorted(starts, best, side="right") - 1
    # Per snapshot, its rows' numbers turned to Python values in one go (not one numpy scalar
    # at a time): the pool is as long as the ties at the cut, hundreds on common words.
    for w in np.unique(which).tolist():
        part, at = found[w]
        s = part.snapshot
        ks = at[best[which == w] - starts[w]]
        rows = part.rows[ks]
        for score, day, row, pk, coverage in zip(
            part.scores[ks].tolist(),
            s.days[rows].tolist(),
            rows.tolist(),
            s.pks[rows].tolist(),
            part.coverage[ks].tolist(),
            strict=True,
        ):
            pool.append(((-score, -day, *s.keys[row][:3], pk), s, row, coverage))
    pool.sort(key=lambda item: item[0])
    return [
        LexicalHit(
            pk=key[-1],
            fact_id=s.fact_ids[row],
            day=date.fromordinal(-key[1]),
            score=-key[0],
            coverage=coverage,
        )
        for key, s, row, coverage in pool[:limit]
    ]
