"""What the Python adapters share (memory_console_client.adapter): the room read from a
framework's settings, refused with words when wrong; the section, the report and the tools
failing open, against a live server and a stopped one."""

import re
import socket

import pytest
from memory_console_client import Client
from memory_console_client.adapter import (
    recall_text,
    remember_text,
    report_delivered,
    room_settings,
    section_or_empty,
)


@pytest.mark.parametrize(
    ("values", "error"),
    [
        ({"room_id": ""}, "the room id (a conversation or thread id) must be a non-empty string"),
        ({"room_id": "dm", "kind": "direct"}, "a direct room needs the person"),
        ({"room_id": "dm", "kind": "chat"}, "room kind must be one of direct, group"),
        ({"room_id": "dm", "projects": "apollo"}, "projects must be a list of project slugs"),
    ],
)
def test_a_wrong_room_is_refused_saying_what_is_wrong(values, error):
    room_id = values.pop("room_id")
    with pytest.raises(ValueError, match=re.escape(error)):
        room_settings(room_id, **values)


def test_a_person_makes_a_direct_room_and_none_a_group_room():
    assert room_settings("dm-1", person="alice").room_kind == "direct"
    assert room_settings("team").room_kind == "group"


def test_the_tools_answer_in_words_and_a_group_room_refuses_user_memory(workspace):
    with Client(workspace.url, workspace.token, "team", "group") as memory:
        assert remember_text(memory, "Standups are at 9:30") == "Remembered (bot memory)."
        assert remember_text(memory, "Standups are at 9:30") == "Already remembered."
        refused = remember_text(memory, "Alice is vegetarian", "user")
        assert refused.startswith("Not saved (forbidden): User memory can't be used")
        assert recall_text(memory, "standups").endswith("Standups are at 9:30")
        assert "Standups are at 9:30" in section_or_empty(memory)


def test_everything_fails_open_on_a_stopped_server(workspace):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        stopped = f"http://127.0.0.1:{sock.getsockname()[1]}"
    with Client(stopped, workspace.token, "dm-1", "direct", person="alice") as memory:
        assert section_or_empty(memory) == ""
        assert report_delivered(memory, "Hello there", "Hi!") is False
        assert recall_text(memory, "x").startswith(
            "Memory could not be searched (connection_failed)"
        )
        assert remember_text(memory, "x").startswith("Not saved (connection_failed)")
