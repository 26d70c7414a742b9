"""Remember over the API: a fact the target scope already holds is not written again, and the
answer says so (200 and `existed: true` instead of 201)."""

from tests.helpers import synced, tree, write_facts


def test_a_second_save_writes_nothing_and_says_it_existed(memory_root, bot_a):
    first = bot_a.post("/facts", {"text": "Prefers tea", "scope": "user"})
    assert (first.status, first.body["existed"]) == (201, False)
    before = tree(memory_root)
    again = bot_a.post("/facts", {"text": "Prefers tea", "scope": "user"})
    assert (again.status, again.body) == (200, {**first.body, "existed": True})
    assert tree(memory_root) == before


def test_a_fact_held_in_another_file_of_the_scope_is_the_answer(memory_root, bot_a):
    write_facts(
        memory_root, "agents/a/memory/profile.md", "Runs the Apollo launch", day="2026-10-02"
    )
    before = synced(memory_root)  # the hand-written file indexed (its history noted) first
    answer = bot_a.post("/facts", {"text": "Runs the Apollo launch", "tier": "log"})
    assert answer.status == 200
    assert answer.body["existed"] is True
    assert (answer.body["file"], answer.body["date"]) == (
        "agents/a/memory/profile.md",
        "2026-10-02",
    )
    assert tree(memory_root) == before
