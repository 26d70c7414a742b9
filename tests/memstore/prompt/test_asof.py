"""What a bot knew on a date, replayed from history: a scripted sequence of saves, an edit, a
forget and a hand edit on four days, read back as of each day (facts and prompt section)."""

from datetime import UTC, date, datetime

import pytest

from memstore.calls.facts import bot_edit, bot_forget, bot_remember
from memstore.facts.markdown import fact_identity
from memstore.facts.paths import Scope
from memstore.index import index_rebuild, index_sync
from memstore.prompt.asof import bot_facts_as_of, facts_as_of, history_start, prompt_as_of
from memstore.rooms.access import Context, Room
from tests.helpers import HistoryClock


def _day(n: int) -> datetime:
    return datetime(2026, 11, n, 12, 0, tzinfo=UTC)


@pytest.fixture
def scripted(db, memory_root, monkeypatch) -> Context:
    ctx = Context(bot="ada", room=Room("dm-1", "direct"), person="alice")
    clock = HistoryClock(monkeypatch, _day(1))
    bot_remember(ctx=ctx, text="Likes tea", tier="profile")
    bot_remember(ctx=ctx, text="Deploys on Friday")
    bot_remember(ctx=ctx, text="Alice is vegetarian", scope="user")
    clock.at(_day(2))
    bot_edit(ctx=ctx, fact_id=fact_identity("Deploys on Friday"), text="Deploys on Monday")
    clock.at(_day(3))
    bot_forget(ctx=ctx, text="Likes tea")
    clock.at(_day(4))
    log = next((memory_root / "agents/ada/memory/log").glob("*.md"))
    with log.open("a") as handle:
        handle.write("- (2026-11-04) Added by hand\n")
    index_sync(scopes=[Scope("bot", "ada")])  # the hand edit is noticed (and dated) here
    return ctx


def _texts(ctx: Context, day: int) -> list[str]:
    return sorted(f.text for f in bot_facts_as_of(ctx=ctx, day=date(2026, 11, day)).items)


def test_each_day_answers_with_what_was_known_then(scripted):
    assert _texts(scripted, 1) == sorted(["Likes tea", "Deploys on Friday", "Alice is vegetarian"])
    assert _texts(scripted, 2) == sorted(["Likes tea", "Deploys on Monday", "Alice is vegetarian"])
    assert _texts(scripted, 3) == sorted(["Deploys on Monday", "Alice is vegetarian"])
    assert _texts(scripted, 4) == sorted(
        ["Deploys on Monday", "Added by hand", "Alice is vegetarian"]
    )


def test_before_anything_was_saved_nothing_was_known(scripted):
    assert facts_as_of(scopes=[Scope("bot", "ada")], day=date(2026, 10, 31)) == []


def test_a_group_room_as_of_a_date_sees_no_user_memory(scripted):
    group = Context(bot="ada", room=Room("g-1", "group"))
    texts = sorted(f.text for f in bot_facts_as_of(ctx=group, day=date(2026, 11, 1)).items)
    assert texts == ["Deploys on Friday", "Likes tea"]


def test_the_prompt_as_of_a_date_is_built_from_that_day(scripted):
    before = prompt_as_of(ctx=scripted, day=date(2026, 11, 1)).text
    after = prompt_as_of(ctx=scripted, day=date(2026, 11, 3)).text
    assert "Deploys on Friday" in before and "Likes tea" in before
    assert "Deploys on Monday" in after and "Friday" not in after and "Likes tea" not in after
    assert after.index("Alice is vegetarian") < after.index("Deploys on Monday")  # block order


def _written_before(memory_root) -> None:
    log = memory_root / "agents/ada/memory/log"
    log.mkdir(parents=True)
    (log / "2026-06.md").write_text(
        "# Memory log\n\n- (2026-06-03) Moved to Porto\n- (2026-06-20) Started pottery\n"
    )


def test_lines_in_the_files_when_history_starts_are_known_from_their_own_date(
    db, memory_root, monkeypatch
):
    _written_before(memory_root)
    clock = HistoryClock(monkeypatch, _day(1))
    index_sync(scopes=[Scope("bot", "ada")])  # the index first sees the file: history starts
    ctx = Context(bot="ada", room=Room("dm-1", "direct"), person="alice")
    clock.at(_day(2))
    bot_remember(ctx=ctx, text="Likes tea")
    texts = lambda day: sorted(f.text for f in bot_facts_as_of(ctx=ctx, day=day).items)  # noqa: E731
    assert texts(date(2026, 6, 1)) == []
    assert texts(date(2026, 6, 10)) == ["Moved to Porto"]
    assert texts(date(2026, 10, 31)) == ["Moved to Porto", "Started pottery"]
    assert texts(date(2026, 11, 2)) == ["Likes tea", "Moved to Porto", "Started pottery"]
    assert history_start(scopes=[Scope("bot", "ada")]) == _day(1)


def test_a_store_indexed_by_reindex_has_no_history_yet_its_lines_count_by_date(db, memory_root):
    _written_before(memory_root)
    index_rebuild()
    found = facts_as_of(scopes=[Scope("bot", "ada")], day=date(2026, 6, 10))
    assert [f.text for f in found] == ["Moved to Porto"]
    assert history_start(scopes=[Scope("bot", "ada")]) is None


def test_a_later_hand_edit_is_known_from_when_it_was_noticed(scripted):
    # The file's history began with saves on day 1; the line added by hand on day 4, dated
    # 2026-11-04, was not there when history started.
    assert "Added by hand" not in _texts(scripted, 3)
