"""A budget that runs out into a partial answer (issue 34): recall answers with its words side
marked `partial` (and `stale`) with the reason, and the prompt with the section as it stood;
`unavailable` stays for a database that can't be reached or nothing ready at all.

No test here depends on the machine's speed: the slow step is held (an embedding model that
never answers until released, a statement that sleeps until its timeout cancels it), and the
budgets are generous for everything else."""

import threading

import numpy as np
import pytest
from django.db import connection

from tests.helpers import log

BUDGET_MS = 3000  # generous: only the held step can run out of it


class HeldEmbedder:
    """An embedding model whose query vectors wait for `release` (a model stuck on a busy box)."""

    name = "held"
    dim = 8

    def __init__(self) -> None:
        self.release = threading.Event()

    def embed_query(self, text: str) -> np.ndarray:
        self.release.wait(30)
        return np.ones(self.dim, dtype=np.float32) / np.sqrt(self.dim)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return np.tile(self.embed_query(""), (len(texts), 1))


@pytest.fixture
def deploy_facts(memory_root, settings):
    settings.MEMORY_READ_BUDGET_MS = BUDGET_MS
    log(
        memory_root,
        "bot",
        "a",
        "2026-11",
        "- (2026-11-01) The deploy runs on Fridays.",
        "- (2026-11-02) Lunch is at noon.",
        bot="a",
    )
    return memory_root


@pytest.fixture
def held_meaning(monkeypatch, deploy_facts):
    embedder = HeldEmbedder()
    monkeypatch.setattr("memstore.recall.search.embedder_current", lambda: embedder)
    yield embedder
    embedder.release.set()


def test_a_late_meaning_side_still_returns_the_word_hits_marked_partial(held_meaning, bot_a):
    answer = bot_a.get("/recall", query="deploy").body
    assert [item["text"] for item in answer["items"]] == ["The deploy runs on Fridays."]
    assert (answer["memory"], answer["partial"], answer["mode"]) == ("ok", True, "lexical")
    assert "before meaning could be searched" in answer["partial_reason"]


def test_a_late_meaning_side_never_claims_there_is_nothing(held_meaning, bot_a):
    answer = bot_a.get("/recall", query="holiday").body
    assert (answer["items"], answer["partial"]) == ([], True)
    assert "Nothing in memory matches" not in answer["note"]
    assert "meaning was not searched" in answer["note"]


@pytest.fixture
def first_rows_statement_held(monkeypatch, deploy_facts, settings):
    """The statement loading recall's rows sleeps until its timeout cancels it, once."""
    from memstore.recall import search

    settings.EMBEDDINGS = "none"
    real, calls = search._rows_and_usage, []

    def held(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_sleep(60)")
        return real(*args, **kwargs)

    monkeypatch.setattr(search, "_rows_and_usage", held)
    return calls


def test_a_read_cancelled_by_its_budget_answers_with_the_words_side(
    first_rows_statement_held, bot_a
):
    answer = bot_a.get("/recall", query="deploy").body
    assert [item["text"] for item in answer["items"]] == ["The deploy runs on Fridays."]
    assert (answer["memory"], answer["partial"], answer["stale"]) == ("ok", True, True)
    assert answer["partial_reason"].startswith("time ran out")
    assert "words side only" in answer["partial_reason"]
    assert len(first_rows_statement_held) == 2  # the cancelled read, then the words side


def test_a_complete_answer_is_not_partial(deploy_facts, bot_a, settings):
    settings.EMBEDDINGS = "none"
    answer = bot_a.get("/recall", query="deploy").body
    assert (answer["partial"], answer["partial_reason"]) == (False, "")
    prompt = bot_a.get("/prompt").body
    assert (prompt["partial"], prompt["partial_reason"], prompt["memory"]) == (False, "", "ok")


def test_a_prompt_that_runs_out_answers_with_the_section_as_it_stood(
    deploy_facts, bot_a, monkeypatch
):
    from memstore.prompt import answer as prompt_answer

    first = bot_a.get("/prompt").body
    assert "Fridays" in first["text"] and first["partial"] is False

    def cancelled(*, ctx):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(60)")

    monkeypatch.setattr(prompt_answer, "prompt_build", cancelled)
    cut = bot_a.get("/prompt").body
    assert (cut["memory"], cut["partial"], cut["stale"]) == ("ok", True, True)
    assert cut["text"] == first["text"]
    assert "as it stood" in cut["partial_reason"]


def test_the_section_as_it_stood_is_not_offered_once_its_files_changed(
    deploy_facts, bot_a, monkeypatch
):
    from memstore.prompt import answer as prompt_answer

    bot_a.get("/prompt")
    log(deploy_facts, "bot", "a", "2026-11", "- (2026-11-03) Deploys moved.", bot="a")

    def cancelled(*, ctx):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(60)")

    monkeypatch.setattr(prompt_answer, "prompt_build", cancelled)
    cut = bot_a.get("/prompt").body
    assert (cut["memory"], cut["partial"], cut["blocks"]) == ("unavailable", False, [])
    assert cut["partial_reason"].startswith("time ran out")
