"""Stale answers tell the truth with counts (issue 34): while a drop-in is still being indexed
and its facts still wait for vectors, the prompt, recall, the health report and /metrics all say
so with the same numbers (`memstore.recall.backlog`), and none claims there is nothing.

The background sync is held (it counts the drop-in, then waits), so the backlog stays put
while the answers are read: nothing here depends on the machine's speed.
"""

import threading

import pytest
from django.test import Client

from memstore.calls.recall import recall_answer
from memstore.facts.paths import Scope
from memstore.index import index_sync, sync
from memstore.index.behind import behind_facts, behind_wait
from memstore.prompt.answer import prompt_answer
from memstore.recall import vectors
from memstore.recall.backfill import backfill_run
from memstore.recall.backlog import memory_backlog, memory_backlog_forget
from memstore.rooms.access import Context, Room
from memstore.upkeep.health_snapshots import bot_health
from tests.api.test_metrics import sample
from tests.helpers import FakeModel, log, wait_until, write_memory

pytestmark = pytest.mark.django_db(transaction=True)
ADA = Context(bot="ada", room=Room("room-1", "routine"))
DROPPED = 5_000  # lines: past what a read indexes inline (128 KiB), so indexed behind it


@pytest.fixture
def endpoint(settings):
    model = FakeModel()
    settings.EMBEDDINGS = "openai:words"
    settings.EMBEDDINGS_BASE_URL = model.url
    settings.EMBEDDINGS_RETRY_WAIT = 0
    vectors.vectors_cache_clear()
    memory_backlog_forget()
    yield model
    vectors.vectors_cache_clear()
    model.close()


@pytest.fixture
def held_drop_in(memory_root, endpoint, monkeypatch):
    """Ada with one fact embedded and one not, then a 5,000-line drop-in whose background sync
    is held (after its count) until the test ends."""
    log(memory_root, "bot", "ada", "2026-10", "- (2026-10-01) Prefers tea over coffee")
    index_sync(scopes=[Scope("bot", "ada")])
    assert backfill_run().embedded == 1
    log(
        memory_root,
        "bot",
        "ada",
        "2026-10",
        "- (2026-10-01) Prefers tea over coffee",
        "- (2026-10-02) Owns a golden retriever",
    )
    index_sync(scopes=[Scope("bot", "ada")])  # one fact indexed, its vector not made yet
    release = threading.Event()
    real = sync._sync_paths

    def held(rels: list[str]) -> None:
        if "agents/ada/memory/log/2026-11.md" in rels:  # the drop-in: only behind the reads
            release.wait(60)
        real(rels)

    monkeypatch.setattr(sync, "_sync_paths", held)
    lines = [f"- (2026-11-{1 + i % 28:02d}) Noted item {i} of the drop-in" for i in range(DROPPED)]
    write_memory(memory_root, "agents/ada/memory/log/2026-11.md", *lines)
    first = prompt_answer(ctx=ADA)  # hands the file to the background sync, which waits
    assert first.stale
    wait_until(lambda: behind_facts(["bot:ada"])[:2] == (DROPPED, 0))
    yield memory_root
    release.set()
    assert behind_wait(timeout=120)


def test_the_prompt_says_how_many_facts_are_still_being_indexed(held_drop_in):
    answer = prompt_answer(ctx=ADA)
    assert (answer.stale, answer.memory, answer.indexing) == (True, "ok", DROPPED)
    assert "5,000 facts still being indexed" in answer.text
    assert "Nothing more on disk for this block." not in answer.text
    assert "Prefers tea over coffee" in answer.text


def test_recall_says_so_and_never_that_nothing_matches(held_drop_in):
    found = recall_answer(ctx=ADA, query="item 4999")
    assert (found.stale, found.value.indexing) == (True, DROPPED)
    assert found.value.note.startswith("5,000 facts still being indexed: not searched yet.")
    assert "Nothing in memory matches." not in found.value.note


def test_health_and_metrics_give_the_same_numbers(held_drop_in, settings):
    backlog = memory_backlog(keys=["bot:ada"])
    assert (backlog.indexing, backlog.words_only) == (DROPPED, 1)
    settings.METRICS_TOKEN = "metrics-secret-for-tests"
    text = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer metrics-secret-for-tests")
    text = text.content.decode()
    assert sample(text, "memory_console_index_backlog_facts") == DROPPED
    assert sample(text, "memory_console_vector_backlog_facts") == 1
    assert "\nmemory_console_backlog_oldest_seconds " in text  # its age: any, on a fast box 0.0
    settings.HEALTH_INLINE_FACTS = 0  # a large store's report: made by the worker, not here
    health = bot_health(ctx=ADA)
    assert (health.report.facts, health.preparing) == (0, True)  # no report yet, but:
    assert (health.indexed, health.backlog.indexing, health.backlog.words_only) == (2, DROPPED, 1)
    assert health.note == (
        "No report yet: the worker is making one over 2 facts; "
        "5,000 facts still being indexed; words only for 1 fact."
    )
