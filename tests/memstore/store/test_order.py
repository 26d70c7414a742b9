"""One ordering everywhere (SPEC §3.2): facts of equal rank go by position — a later line in a
file beats an earlier one, a later month file beats an earlier one — in the prompt, the learner's
known facts and lists; the index keeps each fact's line position through rebuilds and syncs."""

import pytest

from memstore.facts.paths import Scope
from memstore.index import index_rebuild, index_sync
from memstore.learning.known import known_facts
from memstore.models import Fact
from memstore.prompt.section import prompt_build
from memstore.rooms.access import Context, Room
from memstore.store.selectors import facts_list
from tests.helpers import log, shard_dir, write_memory

pytestmark = pytest.mark.django_db

ADA = Scope("bot", "ada")
SAME_DAY = [f"- (2026-11-20) Same-day fact number {n:02}" for n in range(1, 41)]


def positions() -> dict[str, int]:
    return dict(Fact.objects.values_list("text", "position"))


def test_the_index_keeps_line_positions_through_sync_rebuild_and_hand_edits(memory_root):
    path = log(memory_root, "bot", "ada", "2026-11", "- (2026-11-01) First", "- (2026-11-02) Two")
    index_sync(scopes=[ADA])
    assert positions() == {"First": 3, "Two": 4}  # after the two header lines
    path.write_text(
        "# Memory\n\n- (2026-11-03) Inserted\n- (2026-11-01) First\n- (2026-11-02) Two\n"
    )
    index_sync(scopes=[ADA])
    assert positions() == {"Inserted": 3, "First": 4, "Two": 5}
    index_rebuild()
    assert positions() == {"Inserted": 3, "First": 4, "Two": 5}


def test_the_prompt_keeps_the_later_lines_among_equal_ranks(memory_root):
    log(memory_root, "bot", "ada", "2026-11", *SAME_DAY)
    section = prompt_build(ctx=Context(bot="ada", room=Room("r1", "routine")))
    shown = [n for n in range(1, 41) if f"Same-day fact number {n:02}" in section.text]
    assert shown == list(range(11, 41))  # the recent budget holds 30: the last 30 lines


def test_a_later_month_file_beats_an_earlier_one(memory_root):
    # Same date and rank in two month files (a hand-written line may sit in any month).
    log(memory_root, "bot", "ada", "2026-10", *SAME_DAY[:20])
    log(memory_root, "bot", "ada", "2026-11", *SAME_DAY[20:])
    section = prompt_build(ctx=Context(bot="ada", room=Room("r1", "routine")))
    shown = [n for n in range(1, 41) if f"Same-day fact number {n:02}" in section.text]
    assert shown == list(range(11, 41))


def test_the_learner_knows_the_same_facts_the_prompt_shows(memory_root):
    write_memory(memory_root, f"{shard_dir('bot', 'ada', 'ada')}/log/2026-11.md", *SAME_DAY)
    known = known_facts(
        scopes=[ADA], projects=[], readable=[ADA], exchange_text="hello", recalled=[]
    )
    numbers = sorted(int(f.text.rsplit(" ", 1)[1]) for f in known.shown)
    assert numbers == list(range(11, 41))


def test_lists_break_ties_by_position_too(memory_root):
    log(memory_root, "bot", "ada", "2026-11", *SAME_DAY)
    page = facts_list(scopes=[ADA], limit=3)
    assert [f.text[-2:] for f in page.items] == ["40", "39", "38"]
