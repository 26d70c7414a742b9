"""Recall: search a bot's memory by words and by meaning (SPEC §5.3).

lexical   Postgres full-text search: English stems OR-ed, BM25-style ranking, exact short tokens
vectors   embeddings cached by fact identity; exact cosine search per scope
fusion    pure: weighted reciprocal-rank fusion and the relevance floor
search    recall_search: sync, both sides, fusion, budget, substring fallback
words     the reference design's word-overlap search, kept as the evaluation baseline
"""

from memstore.recall.search import RecallResult, recall_search

__all__ = ["RecallResult", "recall_search"]
