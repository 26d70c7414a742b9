"""A bot that keeps a private memory (seed 004): its own memory is read only in its own rooms
(direct, routine, bot, event, and group rooms it opened), never in another group room, never
by another bot, and its prompt never calls it team-wide."""

import pytest

from memstore.registry.bots import bot_create, bot_private_set
from memstore.registry.people import person_add, person_link
from memstore.registry.tokens import token_create
from tests.helpers import BotClient, run_command

DRAFTS = "Keeps the board drafts in folder B"


@pytest.fixture
def bots(db, memory_root) -> dict[str, BotClient]:
    person_add(name="alice")
    clients = {}
    for slug in ("scout", "ben"):
        bot_create(slug=slug)
        person_link(person="alice", bot=slug)
        clients[slug] = BotClient(token=token_create(bot=slug).token, room_id=f"dm-{slug}")
    bot_private_set(bot="scout", private=True)
    assert clients["scout"].post("/facts", {"text": DRAFTS}).status == 201
    return clients


def in_room(client: BotClient, room: str) -> BotClient:
    return BotClient(token=client.token, room_id=room, room_kind="group", person="")


def sees(client: BotClient) -> dict[str, bool]:
    return {
        "prompt": DRAFTS in client.get("/prompt").body["text"],
        "recall": any(
            f["text"] == DRAFTS for f in client.get("/recall", query="drafts").body["items"]
        ),
        "list": any(f["text"] == DRAFTS for f in client.get("/facts").body["items"]),
    }


NOWHERE = {"prompt": False, "recall": False, "list": False}
EVERYWHERE = {"prompt": True, "recall": True, "list": True}


def test_its_own_rooms_read_it(bots):
    assert sees(bots["scout"]) == EVERYWHERE  # its direct room
    routine = BotClient(
        token=bots["scout"].token, room_id="nightly", room_kind="routine", person=""
    )
    assert sees(routine) == EVERYWHERE
    assert sees(in_room(bots["scout"], "scout-lab")) == EVERYWHERE  # a group room it opened


def test_a_group_room_another_bot_opened_reads_none_of_it(bots):
    assert in_room(bots["ben"], "team").get("/prompt").status == 200  # ben opens the room
    team = in_room(bots["scout"], "team")
    assert sees(team) == NOWHERE
    answer = team.get("/facts", scope="bot")
    assert (answer.status, answer.body["code"]) == (403, "forbidden")
    assert "keeps a private memory" in answer.body["message"]
    prompt = team.get("/prompt").body["text"]
    assert "Your own memory" not in prompt and "team-wide" not in prompt


def test_it_is_never_called_team_wide(bots):
    in_room(bots["scout"], "scout-lab").get("/prompt")  # it talks in a group: in_groups
    prompt = bots["scout"].get("/prompt").body["text"]
    assert DRAFTS in prompt and "team-wide" not in prompt


def test_another_bot_never_sees_it(bots):
    assert sees(bots["ben"]) == NOWHERE
    assert sees(in_room(bots["ben"], "scout-lab")) == NOWHERE


def test_an_ordinary_bot_reads_its_memory_in_every_group_room(bots):
    assert bots["ben"].post("/facts", {"text": "Ben files expenses on Fridays"}).status == 201
    in_room(bots["scout"], "team").get("/prompt")  # scout opens the room this time
    in_room(bots["ben"], "team").get("/prompt")  # answered: ben is now in groups
    prompt = in_room(bots["ben"], "team").get("/prompt").body["text"]
    assert "Ben files expenses on Fridays" in prompt and "team-wide" in prompt


def test_a_sensitive_keyword_stays_allowed_in_a_private_memory(bots):
    assert bots["scout"].post("/facts", {"text": "Board lawsuit brief is due"}).status == 201
    assert bots["ben"].post("/facts", {"text": "Board lawsuit brief is due"}).status == 422


def test_the_command_turns_it_on_and_off(bots):
    assert "read in every room" in run_command("bots", "private", "scout", "off")
    assert sees(in_room(bots["scout"], "team")) == EVERYWHERE
    assert "keeps a private memory" in run_command("bots", "private", "scout", "on")
    assert "private memory" in run_command("bots", "list")
