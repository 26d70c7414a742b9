"""The prompt's blocks are remembered while their scope is unchanged: a second prompt loads no
block again, and a hand edit, a save or new budgets show on the very next prompt."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memstore.facts.paths import Scope
from memstore.prompt.answer import prompt_answer
from memstore.prompt.cache import prompt_cache_clear
from memstore.prompt.section import prompt_build
from memstore.rooms.access import Context, Room
from memstore.store.services import fact_remember
from tests.helpers import log, profile

pytestmark = pytest.mark.django_db


@pytest.fixture
def own(memory_root):
    prompt_cache_clear()
    profile(memory_root, "bot", "ada", "- (2026-11-01) Prefers tea")
    edited = log(memory_root, "bot", "ada", "2026-11", "- (2026-11-02) Flies to Lisbon")
    yield Context(bot="ada", room=Room("room-1", "routine")), edited
    prompt_cache_clear()


def _blocks_loaded(ctx) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as queries:
        text = prompt_build(ctx=ctx).text
    # A block loaded in SQL, a scope's state loaded whole, or a state brought up to date.
    marks = ("prompt: block from the index", "prompt state: load", "prompt state: delta")
    return text, sum(any(mark in q["sql"] for mark in marks) for q in queries)


def test_an_unchanged_scope_is_not_loaded_again(own):
    ctx, _ = own
    first, loads = _blocks_loaded(ctx)
    assert loads == 1 and "Prefers tea" in first
    again, loads = _blocks_loaded(ctx)
    assert (again, loads) == (first, 0)


def test_a_hand_edit_and_a_save_show_on_the_next_prompt(own):
    ctx, edited = own
    prompt_build(ctx=ctx)
    edited.write_text(edited.read_text().replace("Lisbon", "Porto"), encoding="utf-8")
    text, loads = _blocks_loaded(ctx)
    assert "Porto" in text and "Lisbon" not in text and loads == 1
    fact_remember(shard=Scope("bot", "ada").shard("ada"), text="Likes jazz on Fridays")
    assert "Likes jazz on Fridays" in prompt_build(ctx=ctx).text


def test_new_budgets_are_not_served_from_the_old_blocks(own, settings):
    ctx, _ = own
    assert "Prefers tea" in prompt_build(ctx=ctx).text
    settings.PROMPT_BUDGETS = {"bot": {"profile": (0, 0)}}
    assert "Prefers tea" not in prompt_build(ctx=ctx).text


def test_a_prompt_within_the_budget_folds_the_sync_check_into_its_statement(own):
    ctx, edited = own
    prompt_answer(ctx=ctx)
    with CaptureQueriesContext(connection) as queries:
        warm = prompt_answer(ctx=ctx)
    sql = [q["sql"] for q in queries]
    # The sync's file rows come in the rule + versions statement, not in one of their own.
    assert not any(s.startswith("SELECT path, mtime_ns") for s in sql)
    assert sum("json_build_array(path, mtime_ns" in s for s in sql) == 1
    assert "Lisbon" in warm.text and warm.memory == "ok" and not warm.stale
    edited.write_text(edited.read_text().replace("Lisbon", "Porto"), encoding="utf-8")
    text = prompt_answer(ctx=ctx).text
    assert "Porto" in text and "Lisbon" not in text
    assert prompt_answer(ctx=ctx).text == text
