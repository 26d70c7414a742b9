"""Reporting exchanges for learning: accepted with 202, stored once, skipped with a reason."""

import pytest

from tests.helpers import BotClient, tree

EXCHANGE = {
    "message": "Can we move the standup to 9:30 from next week?",
    "reply": "Done: standup is at 9:30 from Monday.",
    "message_id": "m-981",
    "reply_id": "m-982",
}


def test_report_is_accepted_once(memory_root, bot_a):
    first = bot_a.post("/exchanges", EXCHANGE)
    assert first.status == 202, first.body
    assert first.body["status"] in ("queued", "skipped")
    again = bot_a.post("/exchanges", EXCHANGE)  # a retry: the stored receipt, 200
    assert (again.status, again.body) == (200, first.body | {"repeated": True})
    assert tree(memory_root) == {}  # learning happens later, in the background


def test_routine_rooms_are_not_learned_from(memory_root, bot_a):
    routine = BotClient(token=bot_a.token, room_kind="routine")
    answer = routine.post("/exchanges", EXCHANGE)
    assert answer.status == 202
    assert answer.body["status"] == "skipped"
    assert answer.body["reason"] == "room_kind"


@pytest.mark.parametrize(
    "change", [{"message_id": "bad id"}, {"message": ""}, {"reply": "x" * 40_001}, {"extra": 1}]
)
def test_malformed_reports_are_refused(bot_a, change):
    assert bot_a.post("/exchanges", {**EXCHANGE, **change}).status == 422


def test_report_from_a_project_not_joined_is_refused(bot_a):
    answer = BotClient(token=bot_a.token, projects="zeus").post("/exchanges", EXCHANGE)
    assert answer.status == 403


def test_an_exchange_with_a_guest_is_skipped_and_says_why(bot_a, settings):
    settings.LEARNING_BASE_URL = "http://127.0.0.1:9/v1"  # learning on; the model is never called
    settings.LEARNING_MODEL = "scripted"
    settings.LEARNING_MODE = "write"
    answer = bot_a.post("/exchanges", {**EXCHANGE, "guests": True})
    assert answer.status == 202, answer.body
    assert (answer.body["status"], answer.body["reason"]) == ("skipped", "guests")
    assert "outside the workspace" in answer.body["detail"]


def test_an_exchange_reported_while_learning_is_off_says_it_is_never_learned(bot_a, settings):
    settings.LEARNING_BASE_URL = ""
    answer = bot_a.post("/exchanges", {**EXCHANGE, "message_id": "m-off"})
    assert (answer.body["status"], answer.body["reason"]) == ("skipped", "off")
    assert "never be learned from, even once learning is turned on" in answer.body["detail"]
    again = bot_a.post("/exchanges", {**EXCHANGE, "message_id": "m-off"})
    assert again.body["detail"] == answer.body["detail"]
