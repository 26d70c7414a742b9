"""Private facts stay in direct rooms (prompt, recall, list), and importance moves a fact in
the rank by IMPORTANCE_MONTHS x (importance - 0.5) months."""

from datetime import date, timedelta

import pytest
from django.utils import timezone

from memstore.calls.facts import bot_facts_list, bot_remember
from memstore.facts.paths import Scope
from memstore.facts.ranking import IMPORTANCE_MONTHS, rank_of
from memstore.prompt.section import prompt_build
from memstore.recall import recall_search
from memstore.rooms.access import Context, Room
from memstore.store.services import fact_remember

DIRECT = Context(bot="ada", room=Room("dm-1", "direct"), person="alice")
GROUP = Context(bot="ada", room=Room("g-1", "group"))
ROUTINE = Context(bot="ada", room=Room("cron", "routine"))


@pytest.fixture
def private_fact(db, settings):
    settings.EMBEDDINGS = "none"
    bot_remember(ctx=DIRECT, text="The launch slips to March", meta={"visibility": "private"})
    bot_remember(ctx=DIRECT, text="The launch party is on Friday")


def test_a_private_fact_reaches_direct_rooms_only(private_fact):
    assert "slips to March" in prompt_build(ctx=DIRECT).text
    for ctx in (GROUP, ROUTINE):
        text = prompt_build(ctx=ctx).text
        assert "slips to March" not in text and "party is on Friday" in text
        assert "Nothing more on disk" in text  # not even counted as left on disk


def test_recall_and_the_list_leave_private_facts_out_of_group_rooms(private_fact):
    found = lambda ctx: [f.text for f in recall_search(ctx=ctx, query="launch").items]  # noqa: E731
    assert sorted(found(DIRECT)) == ["The launch party is on Friday", "The launch slips to March"]
    assert found(GROUP) == ["The launch party is on Friday"]
    listed = [f.text for f in bot_facts_list(ctx=GROUP).items]
    assert listed == ["The launch party is on Friday"]


def test_importance_moves_a_fact_by_a_few_months_in_the_rank():
    day = date(2026, 11, 1)
    plain = rank_of(day=day, weight=1.0)
    assert rank_of(day=day, weight=1.0, importance=0.5) == plain
    assert rank_of(day=day, weight=1.0, importance=1.0) == pytest.approx(
        plain + IMPORTANCE_MONTHS / 2
    )
    assert rank_of(day=day, weight=1.0, importance=0.0) == pytest.approx(
        plain - IMPORTANCE_MONTHS / 2
    )


def test_an_important_older_fact_outranks_a_newer_trivial_one_in_the_prompt(db, settings):
    settings.PROMPT_BUDGETS = {"bot": {"recent": (1, 4000)}}
    shard = Scope("bot", "ada").shard("ada")
    today = timezone.localdate()
    fact_remember(shard=shard, text="Trivial news", day=today, meta={"importance": "0"})
    fact_remember(
        shard=shard,
        text="Essential decision",
        day=today - timedelta(days=30),
        meta={"importance": "1"},
    )
    recent = prompt_build(ctx=DIRECT).text.split("Recently:")[1]
    assert "Essential decision" in recent and "Trivial news" not in recent
