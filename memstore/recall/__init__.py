"""Recall: search a bot's memory by words and by meaning.

- search: `recall_search`; sync, both sides, fusion, substring fallback; budgeted: which ranked
  facts fit the answer's count and characters, and how many more it could return
- sides: what each side of a search finds before fusion
- lexical: Postgres full-text search; English stems OR-ed, BM25-style ranking, exact short tokens
- word_rank: that lexical ranking computed in this process over scope snapshots
- snapshot, versions: scope snapshots and the versions that say when one is out of date
- vectors: the semantic side; matrices: search by meaning in this process; top: the best rows
  without sorting every row
- embeddings: text embeddings; query_vectors: query vectors, cached
- static: the static tier, a token table distilled once from the bundled model; tiers: which
  tier of meaning serves a search (full, static for facts waiting for theirs, or words)
- vector_copy: many vectors stored with one binary COPY
- backfill, jobs: vectors for new facts, made by the worker (never inside a request)
- backlog: how far memory is behind its files, in numbers (being indexed, words only), the one
  count every stale or words-only answer reads
- fusion: pure; weighted reciprocal-rank fusion and the relevance floor
- usage_rank: usage as a small rank adjustment
- rerank, rerankers: reranking the top of a fused recall, and the rerankers; rerank_cost:
  what a pair costs here (a running estimate), so reranking fits the time there is;
  late_interaction: the late-interaction reranker (token-level MaxSim, `RECALL_RERANK=late`)
- partial: facts containing the query as typed, the last resort
- dates: pure; the dates a query names ("in March", "on 1 February, 2023")
- explain: why recall answered what it did
- literals: long parameter lists as one Postgres array literal; lru: a small per-process cache;
  threads: the pool recall uses to do two things at once
- evaluation: retrieval evaluation on LoCoMo-format data
- words: the reference design's word-overlap search, kept as the evaluation baseline

The pure modules import without Django; `recall_search` is loaded on first use.
"""

__all__ = ["RecallResult", "recall_in_scopes", "recall_search"]


def __getattr__(name: str):
    if name in __all__:
        from memstore.recall import search

        return getattr(search, name)
    raise AttributeError(name)
