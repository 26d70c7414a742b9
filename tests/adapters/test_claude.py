"""The Claude adapter (clients/claude-agent): its session hooks (the memory section in at
UserPromptSubmit, one report at Stop once a reply was given, nothing when the server is down)
and Claude's memory tool in the Anthropic SDK's own tool runner, over a live server."""

import json
import socket

import pytest

from memstore.models import Exchange
from tests.adapters.conftest import SCENARIOS
from tests.adapters.test_conformance import DIRECT, GROUP
from tests.helpers import profile


@pytest.fixture
def remembered(agent):
    profile(agent.memory_root, "bot", "scout", "- (2026-11-01) Scout books venues for the team")
    profile(agent.memory_root, "user", "alice", "- (2026-11-01) Likes rooftop venues", bot="scout")
    return agent


def hooks(agent, python, room: dict, url: str | None = None) -> dict:
    done = agent.run([str(python), str(SCENARIOS / "hooks_claude.py"), json.dumps(room)], url=url)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def context_of(answer: dict) -> str:
    return answer["prompt"]["hookSpecificOutput"]["additionalContext"]


def test_the_hooks_add_the_section_and_report_one_delivered_turn(remembered, adapters_python):
    seen = hooks(remembered, adapters_python, DIRECT)
    added = context_of(seen)
    assert "Likes rooftop venues" in added and "Scout books venues for the team" in added
    assert "room_id=dm-alice, room_kind=direct, person=alice" in added
    assert seen["stopped"] == seen["stopped_again"] == seen["stopped_without_reply"] == {}
    assert list(Exchange.objects.values_list("room_id", "message", "reply")) == [
        ("dm-alice", "And when?", "At the rooftop, at 7.")
    ]


def test_the_hooks_leave_the_persons_memory_out_of_a_group_room(remembered, adapters_python):
    added = context_of(hooks(remembered, adapters_python, GROUP))
    assert "Scout books venues for the team" in added and "rooftop" not in added


def test_the_hooks_fail_open_on_a_stopped_server(remembered, adapters_python):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        stopped = f"http://127.0.0.1:{sock.getsockname()[1]}"
    seen = hooks(remembered, adapters_python, DIRECT, url=stopped)
    assert seen["prompt"] == {} and seen["stopped"] == {}
    assert Exchange.objects.count() == 0


def memory_tool(agent, python, room: dict, *calls: dict, url: str | None = None) -> dict:
    command = [str(python), str(SCENARIOS / "memory_tool_claude.py"), json.dumps(room)]
    done = agent.run(command + [json.dumps(list(calls))], url=url)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_claudes_memory_tool_writes_governed_memory(remembered, adapters_python):
    agent = remembered
    seen = memory_tool(
        agent,
        adapters_python,
        DIRECT,
        {"command": "view", "path": "/memories"},
        {"command": "create", "path": "/memories/user.md", "file_text": "- Flies on Fridays\n"},
        {"command": "str_replace", "path": "/memories/user.md", "old_str": "Fridays",
         "new_str": "Thursdays"},
        {"command": "create", "path": "/memories/bot.md",
         "file_text": "- The wifi password is hunter2hunter2"},
        {"command": "delete", "path": "/memories/user.md"},
        {"command": "create", "path": "/memories/notes.md", "file_text": "- Anything"},
    )  # fmt: skip
    results = seen["results"]
    assert seen["reply"] == "Done."
    assert [r["error"] for r in results] == [False, False, False, True, True, True]
    assert "/memories/user.md" in results[0]["text"]
    assert "Saved 1 new fact(s) in /memories/user.md" in results[1]["text"]
    assert "the line now reads - Flies on Thursdays" in results[2]["text"]
    assert results[3]["text"].startswith('"secret_refused:')
    assert "not deleted whole" in results[4]["text"]
    assert "There is no file /memories/notes.md here" in results[5]["text"]
    shard = agent.memory_root / "users/alice/memory/by-agent/scout/profile.md"
    assert "Flies on Thursdays" in shard.read_text()
    assert "hunter2" not in "".join(p.read_text() for p in agent.memory_root.rglob("*.md"))


def test_claudes_memory_tool_in_a_group_room_has_no_user_file(remembered, adapters_python):
    seen = memory_tool(
        remembered,
        adapters_python,
        GROUP,
        {"command": "view", "path": "/memories/user.md"},
    )
    assert seen["results"][0]["error"] is True
    assert "There is no file /memories/user.md here" in seen["results"][0]["text"]


def test_claudes_memory_tool_on_a_stopped_server_says_memory_is_unavailable(
    remembered, adapters_python
):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        stopped = f"http://127.0.0.1:{sock.getsockname()[1]}"
    seen = memory_tool(
        remembered, adapters_python, DIRECT, {"command": "view", "path": "/memories"}, url=stopped
    )
    assert seen["reply"] == "Done."
    assert "Memory is unavailable right now (connection_failed)" in seen["results"][0]["text"]


def test_the_mcp_server_it_hands_a_session_takes_the_rooms_calls(agent, adapters_python):
    command = [str(adapters_python), str(SCENARIOS / "mcp_claude.py"), json.dumps(DIRECT)]
    done = agent.run(command)
    assert done.returncode == 0, done.stdout + done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"remember", "recall", "prompt_section", "report_exchange"} <= set(seen["tools"])
    assert seen["error"] is False
    saved = agent.memory_root / "users/alice/memory/by-agent/scout"
    assert "Takes the 8:15 train" in "".join(p.read_text() for p in saved.rglob("*.md"))
