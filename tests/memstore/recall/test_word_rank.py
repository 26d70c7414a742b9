"""Ranking by words in this process gives exactly what the Postgres statement gives: the same
rows in the same order, the same BM25 scores to the last bit and the same match count, over
random memories (several scopes and shards, hidden facts, names and acronyms matched exactly,
rows found another way); recall answers the same whichever ranks it; and a snapshot follows
hand edits file by file."""

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstore.facts.paths import Scope
from memstore.index import index_sync
from memstore.recall import fusion, search, sides, vectors
from memstore.recall.lexical import lexical_search, lexical_terms
from memstore.recall.search import recall_in_scopes
from memstore.recall.snapshot import snapshots_clear, snapshots_current
from memstore.recall.versions import versions_read
from memstore.recall.word_rank import word_rank
from tests.helpers import log, meaning_ready

pytestmark = pytest.mark.django_db

WORDS = [
    "tea", "teas", "coffee", "morning", "mornings", "Lisbon", "budget", "offsite", "flight",
    "hotel", "US", "IT", "Will", "May", "A1", "dark", "mode", "reports", "the", "and", "of",
    "booked", "books", "booking", "Alice", "Bruno", "plan", "plans", "café", "naïve", "x_y",
]  # fmt: skip
SCOPES = [("bot", "ada"), ("user", "sam"), ("project", "apollo")]


def _facts(seed: int, count: int) -> dict[tuple, list[str]]:
    rng = random.Random(seed)
    files: dict[tuple, list[str]] = {}
    for i in range(count):
        kind, name = rng.choice(SCOPES)
        bot = rng.choice(["ada", "bo"]) if kind != "bot" else "ada"
        month = rng.choice(["2026-10", "2026-11"])
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9)))
        hidden = " <!-- visibility=hidden -->" if rng.random() < 0.1 else ""
        line = f"- ({month}-{rng.randint(1, 28):02d}) {text} {i}{hidden}"
        files.setdefault((kind, name, month, bot), []).append(line)
    return files


def _both(scopes, query: str, *, include_hidden: bool, also_every: int):
    keys = [str(scope) for scope in scopes]
    versions = versions_read(keys)
    snapshots = snapshots_current(versions, keys)
    also = sorted(int(pk) for s in snapshots for pk in s.pks[::also_every])[:100]
    terms = lexical_terms(query)
    sql = lexical_search(
        scopes=scopes, terms=terms, limit=20, include_hidden=include_hidden, also=also
    )
    local = word_rank(
        snapshots,
        terms,
        facts=sum(v[-1] for v in versions.values()),
        limit=20,
        include_hidden=include_hidden,
    )
    found_otherwise = {
        s.fact_ids[i]
        for s in snapshots
        for i, pk in enumerate(s.pks)
        if int(pk) in also and (include_hidden or not s.hidden[i])
    }
    return sql, local, found_otherwise


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 10_000),
    count=st.integers(1, 60),
    query=st.lists(st.sampled_from(WORDS + ["nothing", "Zed"]), min_size=1, max_size=5),
    include_hidden=st.booleans(),
    also_every=st.integers(3, 40),
)
def test_words_rank_the_same_in_process_as_in_postgres(
    memory_root, seed, count, query, include_hidden, also_every
):
    for path in memory_root.rglob("*.md"):
        path.unlink()
    for (kind, name, month, bot), lines in _facts(seed, count).items():
        log(memory_root, kind, name, month, *lines, bot=bot)
    scopes = [Scope(kind, name) for kind, name in SCOPES]
    index_sync(scopes=scopes)
    sql, local, found_otherwise = _both(
        scopes, " ".join(query), include_hidden=include_hidden, also_every=also_every
    )
    assert [(h.pk, h.fact_id, h.day, h.score) for h in local.hits] == [
        (h.pk, h.fact_id, h.day, h.score) for h in sql.hits
    ]
    assert local.matched(found_otherwise) == sql.matched


def test_a_snapshot_follows_a_hand_edit_and_rereads_only_that_file(memory_root):
    snapshots_clear()
    log(memory_root, "bot", "ada", "2026-10", "- (2026-10-01) Prefers green tea")
    edited = log(memory_root, "bot", "ada", "2026-11", "- (2026-11-01) Flies to Lisbon")
    scope = Scope("bot", "ada")
    index_sync(scopes=[scope])
    first = snapshots_current(versions_read([str(scope)]), [str(scope)])[0]
    assert len(first.postings("lisbon")) == 1 and len(first.postings("tea")) == 1

    edited.write_text(edited.read_text().replace("Lisbon", "Porto"), encoding="utf-8")
    index_sync(scopes=[scope])
    second = snapshots_current(versions_read([str(scope)]), [str(scope)])[0]
    assert len(second.postings("lisbon")) == 0 and len(second.postings("porto")) == 1
    october = [fid for fid, part in first.parts.items() if part.fact_ids[0] in second.fact_ids]
    # The untouched file's part is the same object: it was not read again.
    assert any(second.parts[fid] is first.parts[fid] for fid in october)
    assert len(second.postings("tea")) == 1


class WordHashEmbedder:
    """Vectors from hashed words: similar wording, similar vectors; no model needed."""

    name = "word-hash-test-model"
    dim = 32

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.embed_query(text) for text in texts])

    def embed_query(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        for word in text.lower().split():
            vector[sum(map(ord, word)) % self.dim] += 1
        return vector / max(np.linalg.norm(vector), 1e-9)


@pytest.mark.parametrize("mode", ["hybrid", "lexical", "semantic"])
def test_recall_answers_the_same_when_postgres_ranks_a_search_too_large_to_hold(
    memory_root, monkeypatch, mode
):
    embedder = WordHashEmbedder()
    monkeypatch.setattr(search, "embedder_current", lambda: embedder)
    monkeypatch.setattr(vectors, "embedder_current", lambda: embedder)
    monkeypatch.setattr(fusion, "COSINE_FLOORS", {embedder.name: 0.2})
    vectors.vectors_cache_clear()
    for (kind, name, month, bot), lines in _facts(seed=5, count=80).items():
        log(memory_root, kind, name, month, *lines, bot=bot)
    meaning_ready(embedder)
    scopes = [Scope(kind, name) for kind, name in SCOPES]
    for query in ["tea mornings", "Lisbon flight booked", "the US budget", "Will Alice plan"]:
        answers = []
        for largest in (10**9, 0):  # in this process, then as if too large to hold
            monkeypatch.setattr(sides, "LOCAL_MAX_FACTS", largest)
            found = recall_in_scopes(scopes=scopes, query=query, limit=8, mode=mode)
            answers.append(([f.fact_id for f in found.items], found.more, found.mode))
        assert answers[0] == answers[1], query
        assert answers[0][0], query  # the corpus has matches for every query
    vectors.vectors_cache_clear()
