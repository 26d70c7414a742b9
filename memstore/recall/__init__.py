"""Recall: search a bot's memory by words and by meaning (SPEC §5.3).

- lexical: Postgres full-text search; English stems OR-ed, BM25-style ranking, exact short tokens
- vectors: embeddings cached by fact identity; exact cosine search per scope
- backfill, jobs: vectors for new facts, made by the worker (never inside a request)
- fusion: pure; weighted reciprocal-rank fusion and the relevance floor
- dates: pure; the dates a query names ("in March", "on 1 February, 2023")
- search: `recall_search`; sync, both sides, fusion, budget, substring fallback
- words: the reference design's word-overlap search, kept as the evaluation baseline

The pure modules import without Django; `recall_search` is loaded on first use.
"""

__all__ = ["RecallResult", "recall_in_scopes", "recall_search"]


def __getattr__(name: str):
    if name in __all__:
        from memstore.recall import search

        return getattr(search, name)
    raise AttributeError(name)
