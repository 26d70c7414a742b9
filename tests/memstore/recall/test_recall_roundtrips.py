"""Recall's round trips and its query-vector cache: a repeated query runs the model once, a
search costs a fixed number of statements, and the rows the lexical statement (for searches too
large to rank in this process) loads are exactly the stored facts a separate load would give."""

import os
import re
import threading

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memstore.facts.paths import Scope
from memstore.recall import query_vectors, recall_search, search, vectors
from memstore.recall.lexical import lexical_search, lexical_terms
from memstore.rooms.access import Context, Room
from tests.helpers import log, meaning_ready

pytestmark = pytest.mark.django_db

FACTS = [
    "- (2026-11-01) Moved to the NYC office in October",
    "- (2026-11-02) Writes SQL reports for the finance team",
    "- (2026-11-03) Prefers tea over coffee",
    "- (2026-11-04) Drinks green tea every morning",
    "- (2026-11-05) Owns a golden retriever called Biscuit",
]


class CountingEmbedder:
    """Word-hash vectors; counts the queries it embedded and on which threads."""

    name = "counting-test-model"
    dim = 32

    def __init__(self) -> None:
        self.queries: list[str] = []
        self.threads: set[int] = set()

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        for word in re.findall(r"\w+", text.lower()):
            vector[sum(map(ord, word)) % self.dim] += 1
        return vector / max(np.linalg.norm(vector), 1e-9)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        self.queries.append(text)
        self.threads.add(threading.get_ident())
        return self._vector(text)


@pytest.fixture
def counting(memory_root, monkeypatch):
    log(memory_root, "bot", "ada", "2026-11", *FACTS)
    embedder = CountingEmbedder()
    monkeypatch.setattr(search, "embedder_current", lambda: embedder)
    monkeypatch.setattr(vectors, "embedder_current", lambda: embedder)
    vectors.vectors_cache_clear()
    meaning_ready(embedder)  # what the worker does after the files are written
    yield embedder
    vectors.vectors_cache_clear()


def own() -> Context:
    return Context(bot="ada", room=Room("room-1", "routine"))


def test_the_same_query_twice_runs_the_model_once(counting):
    first = recall_search(ctx=own(), query="green tea")
    second = recall_search(ctx=own(), query="  green   tea ")  # same words, other spacing
    assert [f.text for f in first.items] == [f.text for f in second.items]
    assert first.items and first.mode == "hybrid"
    assert counting.queries == ["green tea"]
    recall_search(ctx=own(), query="golden retriever")
    assert counting.queries == ["green tea", "golden retriever"]


def test_beside_the_sql_the_model_runs_on_another_thread(counting, monkeypatch):
    monkeypatch.setattr(query_vectors, "BESIDE_SQL", True)
    inline = recall_search(ctx=own(), query="green tea")
    assert counting.threads and threading.get_ident() not in counting.threads
    monkeypatch.setattr(query_vectors, "BESIDE_SQL", False)
    query_vectors.query_vectors_clear()
    assert recall_search(ctx=own(), query="green tea").items == inline.items
    assert counting.queries == ["green tea", "green tea"]


def test_a_failed_embedding_is_not_remembered(counting, monkeypatch):
    calls = []

    def broken(text: str):
        calls.append(text)
        raise ConnectionError("embedding endpoint down")

    monkeypatch.setattr(counting, "embed_query", broken)
    for _ in range(2):
        result = recall_search(ctx=own(), query="golden retriever")
        assert result.mode == "lexical" and "embedding model failed" in result.note
    assert calls == ["golden retriever", "golden retriever"]


def test_a_warm_hybrid_search_is_two_statements(counting):
    recall_search(ctx=own(), query="tea")  # loads the scope's vectors into this process
    with CaptureQueriesContext(connection) as queries:
        result = recall_search(ctx=own(), query="coffee or tea")
    assert [f.text for f in result.items][:2] == [
        "Prefers tea over coffee",
        "Drinks green tea every morning",
    ]
    # The query's terms with the scopes' versions and their file rows (the sync's check: the
    # files were statted first); loading the facts to show with the candidates' usage (the
    # small nudge usage gives the ranking, issue 24). Both sides rank in this process, over the
    # scope's snapshot. (Within a read's budget the same: tests/api/test_auth_cache.py.)
    assert len(queries) == 2, [q["sql"][:80] for q in queries]
    assert "memstore_memoryfile" in queries[0]["sql"]


def test_a_file_changed_between_searches_is_synced_before_the_answer(counting, memory_root):
    # The stat check rides in the terms statement; a file found behind drops what that read
    # and syncs first, so the second search sees the line written by hand in between.
    assert not recall_search(ctx=own(), query="skateboard").items
    path = log(memory_root, "bot", "ada", "2026-11", *FACTS, "- (2026-11-06) Rides a skateboard")
    os.utime(path, ns=(path.stat().st_mtime_ns + 10**9,) * 2)  # a new mtime, whatever the clock
    with CaptureQueriesContext(connection) as queries:
        result = recall_search(ctx=own(), query="skateboard")
    assert [f.text for f in result.items] == ["Rides a skateboard"]
    assert "Searched by words only" not in result.note
    # The folded read, the sync (its own check and the file's rewrite), then the read again.
    reads = [q for q in queries if "to_tsvector" in q["sql"]]
    assert len(reads) == 2, [q["sql"][:80] for q in queries]


def test_the_rows_loaded_with_the_ranking_are_the_stored_facts(counting):
    recall_search(ctx=own(), query="tea")  # indexes the files
    scope = Scope("bot", "ada")
    with connection.cursor() as cursor:
        cursor.execute("SELECT id FROM memstore_fact WHERE text LIKE 'Owns%%'")
        dog = cursor.fetchone()[0]
    found = lexical_search(scopes=[scope], terms=lexical_terms("tea coffee"), limit=10, also=[dog])
    assert [search._rows([h.pk])[h.pk].text for h in found.hits] == [
        "Prefers tea over coffee",
        "Drinks green tea every morning",
    ]
    wanted = [h.pk for h in found.hits] + [dog]
    assert sorted(found.rows) == sorted(wanted)
    assert found.rows == search._rows(wanted)
