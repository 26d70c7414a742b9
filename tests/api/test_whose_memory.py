"""Whose memory is this, through the API: bot a's prompt marks what bot b saved about the person
(and in a shared project), never what a saved itself."""

from tests.helpers import BotClient


def test_a_bots_prompt_marks_what_another_bot_saved(memory_root, tokens):
    a = BotClient(token=tokens["a"], projects="apollo")
    b = BotClient(token=tokens["b"], projects="apollo")
    assert a.post("/facts", {"text": "Prefers window seats", "scope": "user"}).status == 201
    assert b.post("/facts", {"text": "Booked the Lisbon flights", "scope": "user"}).status == 201
    body = {"text": "Wrote the launch checklist", "scope": "project", "project": "apollo"}
    assert b.post("/facts", body).status == 201
    text = a.get("/prompt").body["text"]
    assert "Booked the Lisbon flights (saved by b)" in text
    assert "Wrote the launch checklist (saved by b)" in text
    assert "Prefers window seats\n" in text and "Prefers window seats (saved" not in text
    theirs = b.get("/prompt").body["text"]
    assert "Prefers window seats (saved by a)" in theirs
    assert "Booked the Lisbon flights\n" in theirs
