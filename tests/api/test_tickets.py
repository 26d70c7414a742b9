"""Signed room tickets: with ROOM_TICKET_KEY set, every memory call carries a ticket the chat
platform signed for exactly this bot, room, kind, person and projects, made here by the lines
docs/api.md shows a platform (run as printed, like test_live runs the guide client)."""

import re
import time
from pathlib import Path

import pytest

from memstore.models import Bot, RoomBinding
from tests.helpers import BotClient, tree

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "api.md"
KEY = "platform-shared-secret-for-tests"


def guide_ticket():
    """The ticket lines of docs/api.md section 8, run as printed."""
    section = GUIDE.read_text().split("## 8.", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) <= 10
    names: dict = {}
    exec(compile(code, str(GUIDE), "exec"), names)  # noqa: S102 - our own documentation
    return names["room_ticket"]


room_ticket = guide_ticket()


def send(
    client: BotClient, ticket: str | None, method: str = "GET", path: str = "/facts", body=None
):
    extra = {"HTTP_X_ROOM_TICKET": ticket} if ticket is not None else {}
    return client.call(method, path, body, **extra)


@pytest.fixture
def keyed(settings):
    settings.ROOM_TICKET_KEY = KEY


ROOM = {"room_id": "dm-7", "room_kind": "direct", "person": "alice", "projects": "apollo"}


def good(bot: str = "a", **changes) -> str:
    fields = {"room_id": "dm-7", "kind": "direct", "person": "alice", "projects": ["apollo"]}
    fields |= changes
    return room_ticket(KEY, bot, **fields)


def test_a_valid_ticket_lets_the_call_through(memory_root, tokens, keyed):
    client = BotClient(token=tokens["a"], **ROOM)
    answer = send(client, good(), "POST", "/facts", {"text": "Prefers tea", "scope": "user"})
    assert answer.status == 201, answer.body
    # The person in any case: the ticket signs the lower-cased name.
    upper = BotClient(token=tokens["a"], **ROOM | {"person": "ALICE"})
    assert send(upper, good()).status == 200


@pytest.mark.parametrize(
    "ticket,code",
    [
        (None, "ticket_missing"),
        ("", "ticket_missing"),
        ("not-a-ticket", "ticket_invalid"),
        ("v1.123.abc", "ticket_invalid"),
        (lambda: good(bot="b"), "ticket_invalid"),
        (lambda: good(room_id="dm-8"), "ticket_invalid"),
        (lambda: good(kind="group"), "ticket_invalid"),
        (lambda: good(person="carol"), "ticket_invalid"),
        (lambda: good(projects=[]), "ticket_invalid"),
        (lambda: good(projects=["apollo", "zeus"]), "ticket_invalid"),
        (
            lambda: room_ticket("another key", "a", "dm-7", "direct", "alice", ["apollo"]),
            "ticket_invalid",
        ),
        (lambda: good(ttl=-1), "ticket_expired"),
    ],
)
def test_a_call_without_a_valid_ticket_is_a_401_and_changes_nothing(
    memory_root, tokens, keyed, ticket, code
):
    ticket = ticket() if callable(ticket) else ticket
    client = BotClient(token=tokens["a"], **ROOM)
    for method, path, body in (
        ("POST", "/facts", {"text": "Prefers tea", "scope": "user"}),
        ("GET", "/facts", None),
        ("GET", "/prompt", None),
    ):
        answer = send(client, ticket, method, path, body)
        assert (answer.status, answer.body["code"]) == (401, code), answer.body
    assert tree(memory_root) == {}
    assert not RoomBinding.objects.exists()


def test_a_ticket_is_not_a_licence_to_forge_a_room(memory_root, tokens, keyed):
    # Even a validly signed ticket can't re-kind a bound room or reach an unlinked person.
    send(BotClient(token=tokens["a"], **ROOM), good())
    group = BotClient(token=tokens["a"], **ROOM | {"room_kind": "group", "person": ""})
    answer = send(group, good(kind="group", person=""))
    assert (answer.status, answer.body["code"]) == (409, "room_conflict")
    assert not Bot.objects.get(slug="a").in_groups


def test_without_a_key_no_ticket_is_needed(memory_root, tokens, settings):
    settings.ROOM_TICKET_KEY = ""
    client = BotClient(token=tokens["a"], **ROOM)
    assert send(client, None).status == 200
    assert send(client, "v1.0.not-checked").status == 200


def test_a_retry_with_a_fresh_ticket_is_the_same_idempotent_call(memory_root, tokens, keyed):
    client = BotClient(token=tokens["a"], **ROOM)
    body = {"text": "Prefers tea"}
    first = client.post("/facts", body, HTTP_X_ROOM_TICKET=good(), HTTP_IDEMPOTENCY_KEY="k1")
    time.sleep(1.1)  # the next ticket has another expiry, so other bytes
    again = client.post("/facts", body, HTTP_X_ROOM_TICKET=good(), HTTP_IDEMPOTENCY_KEY="k1")
    assert (first.status, again.status) == (201, 201)
    assert again.headers.get("Idempotent-Replayed") == "true"


def test_the_documented_lines_make_the_servers_ticket(monkeypatch):
    from memstore.rooms.tickets import room_ticket as servers

    monkeypatch.setattr(time, "time", lambda: 1_800_000_000.5)
    made = servers(
        key=KEY, bot="a", room_id="dm-7", kind="direct", person="Alice", projects=["apollo"] * 2
    )
    assert made == good(person="alice") and made.startswith("v1.1800000300.")


BOARD = {"room_id": "board", "room_kind": "group", "person": "", "projects": ""}
PRIVATE = {"HTTP_X_ROOM_PRIVATE": "true"}


def board_ticket(**changes) -> str:
    return room_ticket(KEY, "a", "board", "group", "", (), **changes)


def test_a_private_claim_needs_a_ticket_that_signs_it(memory_root, tokens, keyed):
    # X-Room-Private on a room's first call decides where every later save there goes, so a
    # ticket for the room alone does not let a bot call it private.
    board = BotClient(token=tokens["a"], **BOARD)
    answer = board.post(
        "/facts", {"text": "Q3 numbers"}, HTTP_X_ROOM_TICKET=board_ticket(), **PRIVATE
    )
    assert (answer.status, answer.body["code"]) == (401, "ticket_invalid"), answer.body
    assert "X-Room-Private" in answer.body["message"]
    assert tree(memory_root) == {} and not RoomBinding.objects.exists()
    # A ticket that says private is not one for a call that claims nothing either.
    answer = board.post(
        "/facts", {"text": "Q3 numbers"}, HTTP_X_ROOM_TICKET=board_ticket(private=True)
    )
    assert (answer.status, answer.body["code"]) == (401, "ticket_invalid"), answer.body
    assert tree(memory_root) == {} and not RoomBinding.objects.exists()

    signed = board_ticket(private=True)
    answer = board.post("/facts", {"text": "Q3 numbers"}, HTTP_X_ROOM_TICKET=signed, **PRIVATE)
    assert (answer.status, answer.body["scope"]) == (201, "room"), answer.body
    assert RoomBinding.objects.get(room_id="board").private
    # Bound private, a later call's ticket need not sign it (the call need not claim it).
    listed = board.get("/facts", HTTP_X_ROOM_TICKET=board_ticket())
    assert [f["text"] for f in listed.body["items"]] == ["Q3 numbers"]


def test_the_documented_lines_sign_a_private_claim(monkeypatch):
    from memstore.rooms.tickets import room_ticket as servers

    monkeypatch.setattr(time, "time", lambda: 1_800_000_000.5)
    made = servers(key=KEY, bot="a", room_id="board", kind="group", private=True)
    assert made == board_ticket(private=True) != board_ticket()
