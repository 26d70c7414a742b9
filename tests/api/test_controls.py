"""A person's controls, set in the console, taking effect on the bots' very next API call:
pause leaves their memory out of the prompt and recall while an explicit save still goes
through, excluded topics refuse any word form with `topic_exclude`, and undoing either puts
things back on the next call."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client


@pytest.fixture
def alice_console(db, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    user = get_user_model().objects.create_user("alice", password="pw-alice-1234")
    client = Client()
    client.force_login(user)
    return client


def _control(client, **data):
    response = client.post("/people/alice/controls/", data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200, response.content


def test_pause_leaves_the_memory_out_lets_an_explicit_save_through_and_resume_undoes_it(
    memory_root, bot_a, alice_console
):
    assert bot_a.post("/facts", {"text": "Likes window seats", "scope": "user"}).status == 201
    _control(alice_console, action="pause")
    saved = bot_a.post("/facts", {"text": "Moved to Porto", "scope": "user"})
    assert saved.status == 201  # she asked the bot to remember it: the save goes through
    prompt = bot_a.get("/prompt").body
    assert "Likes window seats" not in prompt["text"] and "Moved to Porto" not in prompt["text"]
    assert "### About alice (memory paused)" in prompt["text"]
    assert "alice paused memory" in prompt["text"]
    assert bot_a.get("/recall", query="window seats").body["items"] == []
    _control(alice_console, action="resume")
    prompt = bot_a.get("/prompt").body["text"]
    assert "Likes window seats" in prompt and "Moved to Porto" in prompt
    assert [f["text"] for f in bot_a.get("/recall", query="window seats").body["items"]] == [
        "Likes window seats"
    ]


def test_an_excluded_topic_refuses_the_next_call_in_any_word_form(
    memory_root, bot_a, alice_console
):
    assert bot_a.post("/facts", {"text": "Her divorce came through", "scope": "user"}).status == 201
    _control(alice_console, action="exclude", topic="Divorce")
    for text in ("Got divorced in May", "Is divorcing", "Talks about divor\u200bce"):
        refused = bot_a.post("/facts", {"text": text, "scope": "user"})
        assert (refused.status, refused.body["code"]) == (422, "topic_excluded"), text
    _control(alice_console, action="include", topic="divorce")
    assert bot_a.post("/facts", {"text": "Got divorced in May", "scope": "user"}).status == 201
