"""Usage in the ranking: bounded, small, neutral without usage; the SQL twin agrees with the
pure rule; a prompt and recall through the API move a fact recalled often a little up and one
unused for months a little down, and never rewrite a file (importance stays as written)."""

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import pytest
from django.db import connection
from django.utils import timezone
from hypothesis import given, settings
from hypothesis import strategies as st

from memstore.facts.markdown import fact_identity
from memstore.facts.ranking import (
    USAGE_IDLE_PENALTY,
    USAGE_MAX_BONUS,
    usage_bonus,
    usage_bonus_sql,
)
from memstore.models import FactUsage
from memstore.prompt.cache import prompt_cache_clear
from memstore.recall.usage_rank import usage_applied, usage_reach
from memstore.upkeep.usage import usage_flush
from tests.helpers import day, tree, write_memory

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize(
    ("recalled", "idle", "bonus"),
    [
        (0, None, 0.0),
        (5, None, 0.0),  # no row: neutral (LoCoMo, a new install)
        (0, 3, 0.0),  # only prompted lately: prompts never earn the bonus
        (1, 3, 0.25),
        (3, 30, 0.5),
        (1_000_000, 1, USAGE_MAX_BONUS),
        (40, 31, 0.0),
        (40, 120, 0.0),
        (40, 121, -USAGE_IDLE_PENALTY),
        (0, 400, -USAGE_IDLE_PENALTY),
    ],
)
def test_the_bonus_is_small_bounded_and_neutral_without_usage(recalled, idle, bonus):
    last = None if idle is None else TODAY - timedelta(days=idle)
    assert usage_bonus(recalled=recalled, last_used=last, today=TODAY) == pytest.approx(bonus)


@pytest.mark.django_db
def test_the_sql_twin_agrees():
    cases = [(r, i) for r in (0, 1, 2, 7, 100, 10**6) for i in (None, 0, 29, 30, 31, 120, 121, 999)]
    for recalled, idle in cases:
        last = (
            None if idle is None else datetime(2026, 12, 1, 12, tzinfo=UTC) - timedelta(days=idle)
        )
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT {usage_bonus_sql('u.', "DATE '2026-12-01'")} FROM (SELECT %s::int AS recalled,"
                " %s::timestamptz AS last_used) u",
                [recalled, last],
            )
            (got,) = cursor.fetchone()
        want = usage_bonus(recalled=recalled, last_used=last and last.date(), today=TODAY)
        assert float(got) == pytest.approx(want), (recalled, idle)


def _used(scope: str, text: str, *, recalled: int, days_ago: int) -> None:
    FactUsage.objects.create(
        scope_key=scope,
        fact_id=fact_identity(text),
        recalled=recalled,
        prompted=recalled,
        last_used=timezone.now() - timedelta(days=days_ago),
    )


def _order(text: str, *facts: str) -> list[str]:
    return sorted(facts, key=text.index)


@pytest.mark.django_db
def test_a_fact_recalled_often_ranks_a_little_higher_in_the_prompt(memory_root, bot_a):
    month = f"{day(0):%Y-%m}"
    write_memory(
        memory_root,
        f"agents/a/memory/log/{month}.md",
        f"- ({day(6)}) Uses the blue deploy checklist",
        f"- ({day(2)}) Standup moved to 9:30",
        f"- ({day(1)}) Reads the ops channel first",
    )
    prompt_cache_clear()
    before = bot_a.get("/prompt").body["text"]
    assert _order(before, "blue deploy", "Standup", "ops channel") == [
        "ops channel", "Standup", "blue deploy"
    ]  # fmt: skip
    files = tree(memory_root)
    for _ in range(3):
        assert bot_a.get("/recall", query="deploy checklist").status == 200
    usage_flush()
    prompt_cache_clear()  # a block is read again when its files change, or the next day
    after = bot_a.get("/prompt").body["text"]
    # 3 recalls: +0.5 of a month of recency, enough to pass facts 4 and 5 days newer.
    assert _order(after, "blue deploy", "Standup", "ops channel") == [
        "blue deploy", "ops channel", "Standup"
    ]  # fmt: skip
    assert {k: v for k, v in tree(memory_root).items() if k.endswith(".md")} == {
        k: v for k, v in files.items() if k.endswith(".md")
    }


@pytest.mark.django_db
def test_a_fact_unused_for_months_ranks_a_little_lower_but_not_far(memory_root, bot_a):
    month = f"{day(0):%Y-%m}"
    write_memory(
        memory_root,
        f"agents/a/memory/log/{month}.md",
        f"- ({day(40)}) Far older",
        f"- ({day(18)}) Older and still in use",
        f"- ({day(5)}) Idle since spring",
        f"- ({day(3)}) Newest",
    )
    _used("bot:a", "Idle since spring", recalled=9, days_ago=200)
    _used("bot:a", "Older and still in use", recalled=0, days_ago=1)
    prompt_cache_clear()
    text = bot_a.get("/prompt").body["text"]
    # -0.5 of a month: below a fact 13 days older, still above one 35 days older.
    assert _order(text, "Far older", "Older and still", "Idle since", "Newest") == [
        "Newest", "Older and still", "Idle since", "Far older"
    ]  # fmt: skip


@pytest.mark.django_db
def test_recall_breaks_a_near_tie_by_usage(memory_root, bot_a):
    write_memory(
        memory_root,
        "agents/a/memory/profile.md",
        f"- ({day(3)}) Flight to Lisbon on Friday",
        f"- ({day(3)}) Flight to Porto on Friday",
    )
    ids = [i["text"] for i in bot_a.get("/recall", query="flight friday").body["items"]]
    first, second = ids[0], ids[1]
    _used("bot:a", second, recalled=50, days_ago=1)
    body = bot_a.get("/recall", query="flight friday").body
    ids = [i["text"] for i in body["items"]]
    assert ids[:2] == [second, first], body


@dataclass(frozen=True)
class _Hit:
    pk: int
    fact_id: str
    day: date
    score: float


@settings(max_examples=300, deadline=None)
@given(
    scores=st.lists(st.floats(0.001, 1.0), min_size=1, max_size=60),
    bonuses=st.lists(st.floats(-USAGE_IDLE_PENALTY, USAGE_MAX_BONUS), min_size=60, max_size=60),
    first=st.integers(1, 30),
)
def test_the_rows_loaded_before_the_usage_cover_every_hit_the_nudge_can_bring_to_the_top(
    scores, bonuses, first
):
    # Recall loads the rows of the first `usage_reach` hits together with the usage: whatever
    # the usage turns out to be, the first `first` after the nudge are among them.
    fused = sorted(
        (_Hit(i, f"f{i:03}", TODAY - timedelta(days=i % 7), s) for i, s in enumerate(scores)),
        key=lambda h: (-h.score, -h.day.toordinal(), h.fact_id),
    )
    reach = {h.pk for h in fused[: usage_reach(fused, first)]}
    nudged = usage_applied(fused, {h.fact_id: b for h, b in zip(fused, bonuses, strict=False)})
    assert {h.pk for h in nudged[:first]} <= reach
