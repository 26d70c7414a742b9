"""A private conversation (seed 004): in a group room the platform calls private
(`X-Room-Private: true`, fixed by the room's first answered call), what is saved belongs to the
conversation: read only there, by the bots talking in it; a group DM (no header) stays a shared
working space, so its saves are shared as ever."""

import pytest

from memstore.learning import exchange_submit
from memstore.learning.pipeline import exchange_learn
from memstore.llm.config import learner_config, model_client
from memstore.rooms.context import context_open
from tests.helpers import BotClient, FakeModel, learner_on, ok, texts_on_disk

PRIVATE = {"HTTP_X_ROOM_PRIVATE": "true"}
Q3 = "Q3 numbers go out on the 5th"


def in_room(token: str, room: str) -> BotClient:
    return BotClient(token=token, room_id=room, room_kind="group", person="")


def seen(client: BotClient, **headers) -> dict[str, bool]:
    return {
        "prompt": Q3 in client.get("/prompt", **headers).body["text"],
        "recall": any(
            f["text"] == Q3
            for f in client.get("/recall", query="Q3 numbers", **headers).body["items"]
        ),
        "list": any(f["text"] == Q3 for f in client.get("/facts", **headers).body["items"]),
    }


ALL = {"prompt": True, "recall": True, "list": True}
NONE = {"prompt": False, "recall": False, "list": False}


@pytest.fixture
def saved(tokens, memory_root):
    board = in_room(tokens["a"], "board")
    answer = board.post("/facts", {"text": Q3}, **PRIVATE)
    assert answer.status == 201, answer.body
    return answer.body


def test_a_save_in_a_private_conversation_belongs_to_it(saved, memory_root):
    assert (saved["scope"], saved["scope_name"], saved["bot"]) == ("room", "board", "a")
    assert texts_on_disk(memory_root) == {
        f"rooms/board/memory/by-agent/a/log/{saved['date'][:7]}.md": [Q3]
    }


def test_it_is_read_there_by_the_bots_in_it_and_nowhere_else(saved, tokens):
    assert seen(in_room(tokens["a"], "board")) == ALL  # bound private: no header needed now
    assert seen(in_room(tokens["b"], "board")) == ALL  # another bot talking in it
    assert (
        "### This conversation (private"
        in in_room(tokens["b"], "board").get("/prompt").body["text"]
    )
    assert seen(in_room(tokens["a"], "team")) == NONE
    assert seen(BotClient(token=tokens["a"], room_id="dm-alice")) == NONE


def test_a_group_dm_stays_shared(tokens, memory_root):
    group_dm = in_room(tokens["a"], "gdm-3")
    answer = group_dm.post("/facts", {"text": Q3})
    assert (answer.status, answer.body["scope"]) == (201, "bot")
    assert seen(in_room(tokens["a"], "team")) == ALL


def test_a_shared_room_cant_be_called_private_later(tokens):
    team = in_room(tokens["a"], "team")
    assert team.get("/prompt").status == 200  # binds it as a shared group room
    answer = team.get("/prompt", **PRIVATE)
    assert (answer.status, answer.body["code"]) == (409, "room_conflict")
    assert "not a private one" in answer.body["message"]


def test_only_a_group_room_can_be_private(tokens):
    answer = BotClient(token=tokens["a"], room_id="dm-alice").get("/prompt", **PRIVATE)
    assert answer.status == 403
    assert "Only a group room can be a private conversation" in answer.body["message"]


def test_the_learner_keeps_what_it_learns_there_in_the_conversation(saved, memory_root, settings):
    model = learner_on(settings, FakeModel())
    try:
        model.push(ok("profile: The board meets on Mondays"))
        ctx = context_open(bot="a", room_id="board", room_kind="group")
        assert ctx.room_private
        receipt = exchange_submit(
            ctx=ctx,
            message="The board meets on Mondays now",
            reply="Noted.",
            message_id="m1",
            reply_id="r1",
        )
        config = learner_config()
        assert (
            exchange_learn(exchange_id=receipt.id, client=model_client(config), config=config)
            == "done"
        )
    finally:
        model.close()
    assert texts_on_disk(memory_root)["rooms/board/memory/by-agent/a/profile.md"] == [
        "The board meets on Mondays"
    ]
    assert not (memory_root / "agents").exists()
