"""A private conversation's memory in the console: a save in a group room the platform called
private (`X-Room-Private: true`) lives in `rooms/<room>/memory/by-agent/<bot>/`, the folders of
legacy room memory, but it is not legacy memory. The console shows it as what it is (its own
column, tab and label, saying who reads it), and only to staff: SPEC §6 lets a person see every
bot's own and project memory and their own user memory, and nothing says who else is in a
private conversation, so nobody else may read it here (seed 004: "only the people who can read
that conversation get it back")."""

import re

import pytest

from memstore.registry.bots import bot_create
from memstore.registry.tokens import token_create
from tests.helpers import BotClient, day, write_memory

SECRET_PLAN = "Board approves the Q3 layoffs on Friday"
SEEN = "Board approves the"  # a piece of it no search for "Q3 layoffs" marks (or types)
PRIVATE = {"HTTP_X_ROOM_PRIVATE": "true"}


@pytest.fixture
def board(workspace):
    """ava saves in the private conversation `board`, through the API as a bot would; the
    workspace already holds ava's legacy memory of room `general`."""
    bot_create(slug="ava", display_name="Ava")
    ava = BotClient(
        token=token_create(bot="ava", name="t").token, room_id="board", room_kind="group", person=""
    )
    answer = ava.post("/facts", {"text": SECRET_PLAN}, **PRIVATE)
    assert (answer.status, answer.body["scope"]) == (201, "room"), answer.body
    return workspace


def home_row(client, bot: str) -> dict[str, str]:
    html = client.get("/").content.decode()
    row = re.search(rf'<tr>\s*<th scope="row"><a href="/bots/{bot}/">.*?</tr>', html, re.S)
    assert row, html
    return dict(re.findall(r'<td data-label="([^"]+)">(\d+)</td>', row[0]))


def page(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_a_person_sees_nothing_of_a_private_conversation(board, ann):
    assert home_row(ann, "ava")["Legacy rooms"] == "1"  # general only
    assert "Private conversations" not in page(ann, "/")
    assert SEEN not in page(ann, "/bots/ava/?tab=rooms")
    assert SEEN not in page(ann, "/bots/ava/?tab=private")
    assert SEEN not in page(ann, "/bots/ava/?q=Q3+layoffs")
    assert SEEN not in page(ann, "/search/?q=Q3+layoffs")
    history = ann.get("/bots/ava/history/?shard=room:board%7Cava")
    assert history.status_code == 403 and SEEN not in history.content.decode()
    assert SEEN not in page(ann, "/")  # recent changes
    preview = ann.get("/bots/ava/prompt/?kind=group&room=board")
    assert preview.status_code == 403 and SEEN not in preview.content.decode()
    assert "private conversation" in preview.content.decode()


def test_staff_see_it_as_a_private_conversation_not_a_legacy_room(board, boss):
    row = home_row(boss, "ava")
    assert (row["Legacy rooms"], row["Private conversations"]) == ("1", "1")
    legacy = page(boss, "/bots/ava/?tab=rooms")
    assert "The general room speaks English" in legacy
    assert SECRET_PLAN not in legacy
    private = page(boss, "/bots/ava/?tab=private")
    assert SECRET_PLAN in private
    assert "private conversation board" in private  # the row's scope label
    assert "read only in that room, by the bots talking in it" in private
    tabs = re.findall(r'<a href="\?tab=(\w+)"[^>]*>([^<]+)<span class="count">(\d+)', legacy)
    assert [(t, label.strip(), n) for t, label, n in tabs if t in ("rooms", "private")] == [
        ("rooms", "Legacy rooms", "1"),
        ("private", "Private conversations", "1"),
    ]
    assert SEEN in page(boss, "/bots/ava/history/?shard=room:board%7Cava")
    assert "private conversation board" in page(boss, "/bots/ava/history/")  # the shard picker
    assert SEEN in page(boss, "/bots/ava/prompt/?kind=group&room=board")
    found = page(boss, "/search/?q=Q3+layoffs")
    assert SEEN in found and "private conversation board" in found


def test_a_legacy_room_is_still_a_legacy_room(workspace, boss):
    write_memory(
        workspace, "rooms/board/memory/by-agent/ben/profile.md", f"- ({day(3)}) Old board notes"
    )
    assert home_row(boss, "ben")["Legacy rooms"] == "1"
    assert "Private conversations" not in page(boss, "/")
    assert "Old board notes" in page(boss, "/bots/ben/?tab=rooms")


def test_a_private_conversation_with_memory_is_not_reset_into_a_legacy_room(board, boss):
    from memstore.rooms.tickets import rooms_private

    # Without its binding the room's memory would be a legacy room's: shown to everyone.
    refused = boss.post("/people/", {"action": "reset-room", "room": "board"})
    assert refused.status_code == 403
    assert "private conversation and its memory is still there" in refused.content.decode()
    assert rooms_private() == {"board"}  # still bound private
    for path in (board / "rooms/board/memory").rglob("*.md"):
        path.write_text("# Memory\n", encoding="utf-8")  # its facts deleted by hand
    assert boss.post("/people/", {"action": "reset-room", "room": "board"}).status_code == 302
    assert rooms_private() == set()
