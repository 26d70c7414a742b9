"""A person's controls, set in the console, taking effect on the bots' very next API call:
pause refuses saves about them with `memory_paused` (nothing written), excluded topics refuse
any word form with `topic_exclude`, and undoing either lets the next call through."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.helpers import tree


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


def test_pause_refuses_the_next_save_about_the_person_and_resume_allows_it(
    memory_root, bot_a, alice_console
):
    assert bot_a.post("/facts", {"text": "Likes window seats", "scope": "user"}).status == 201
    before = tree(memory_root)
    _control(alice_console, action="pause")
    refused = bot_a.post("/facts", {"text": "Moved to Porto", "scope": "user"})
    assert (refused.status, refused.body["code"]) == (409, "memory_paused")
    assert "alice paused memory" in refused.body["message"]
    assert {k: v for k, v in tree(memory_root).items() if "controls" not in k} == before
    own = bot_a.post("/facts", {"text": "Uses metric units"})
    assert own.status == 201  # the bot's own memory is not about alice
    _control(alice_console, action="resume")
    assert bot_a.post("/facts", {"text": "Moved to Porto", "scope": "user"}).status == 201


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
