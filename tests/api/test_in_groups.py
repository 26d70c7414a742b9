"""A bot seen in a group room is marked "in groups" by an answered group call; later group
calls in the same process send no UPDATE (memstore/rooms/context.py remembers the mark at the
authorization generation, so after a generation moves, such as a room's first call binding it,
the next call writes the mark once more, a no-op), and a bot deleted and made again is marked
again."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from memstore.models import Bot
from memstore.registry.bots import bot_create
from memstore.registry.people import person_link
from memstore.registry.tokens import token_create
from tests.helpers import BotClient


def bot_updates(queries) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].startswith('UPDATE "memstore_bot"')]


def test_group_calls_mark_the_bot_once_per_generation(memory_root, bot_a):
    group = BotClient(token=bot_a.token, room_id="team", room_kind="group")
    with CaptureQueriesContext(connection) as first:
        assert group.get("/facts").status == 200  # binds the room: the generation moves
        assert group.get("/facts").status == 200
    assert Bot.objects.get(slug="a").in_groups
    with CaptureQueriesContext(connection) as later:
        for _ in range(3):
            assert group.get("/facts").status == 200
        assert group.post("/facts", {"text": "Standup moved to ten"}).status == 201
    assert len(bot_updates(first)) == 2
    assert bot_updates(later) == []


def test_a_bot_made_again_is_marked_again(memory_root, bot_a):
    group = BotClient(token=bot_a.token, room_id="team", room_kind="group")
    for _ in range(2):
        assert group.get("/facts").status == 200
    Bot.objects.filter(slug="a").delete()
    bot_create(slug="a")
    person_link(person="alice", bot="a")
    assert not Bot.objects.get(slug="a").in_groups
    again = BotClient(token=token_create(bot="a").token, room_id="team-2", room_kind="group")
    assert again.get("/facts").status == 200
    assert Bot.objects.get(slug="a").in_groups
