"""The learning page and the home page's learning failures."""

import pytest

from memstore.learning import exchange_submit
from memstore.rooms.context import context_open
from tests.helpers import plain

pytestmark = pytest.mark.django_db


def _small_talk(person: str, message_id: str) -> None:
    ctx = context_open(bot="ava", room_id=f"dm-{person}", room_kind="direct", person=person)
    exchange_submit(
        ctx=ctx,
        message="thanks!",
        reply="You're welcome.",
        message_id=message_id,
        reply_id=f"r-{message_id}",
    )


def test_learning_page_lists_what_the_learner_decided(ann, workspace):
    _small_talk("ann", "m1")
    text = plain(ann.get("/bots/ava/learning/"))
    assert "Learning is" in text and "skipped" in text and "dm-ann" in text


def test_learning_of_other_peoples_direct_rooms_is_private(client, people, workspace):
    _small_talk("sam", "m2")
    client.force_login(people["ann"])
    assert "dm-sam" not in plain(client.get("/bots/ava/learning/"))
    client.force_login(people["boss"])
    assert "dm-sam" in plain(client.get("/bots/ava/learning/"))
