"""Every adapter, one agent turn at a time against a live server and the scripted model: the room
mapped from the framework's own settings, no person's memory in a group room, the agent running
on without memory when the server is down, and one report per delivered turn (none without a
reply)."""

import json
import socket

import pytest

from memstore.models import Exchange
from tests.adapters.conftest import turn_command
from tests.helpers import calls_tool, ok, profile, status

ADAPTERS = ["langgraph", "openai_agents", "vercel_ai"]

DIRECT = {"room_id": "dm-alice", "room_kind": "direct", "person": "alice", "projects": ["apollo"]}
GROUP = {"room_id": "team", "room_kind": "group", "projects": ["apollo"]}


@pytest.fixture
def remembered(agent):
    """Scout's own memory and what scout knows about alice, as files."""
    profile(agent.memory_root, "bot", "scout", "- (2026-11-01) Scout books venues for the team")
    profile(agent.memory_root, "user", "alice", "- (2026-11-01) Likes rooftop venues", bot="scout")
    return agent


def sent(agent, n: int) -> str:
    """What the framework sent the model in its n-th call (all messages and instructions)."""
    return json.dumps(agent.model.requests[n])


def texts_under(root, folder: str) -> str:
    return "".join(p.read_text() for p in (root / folder).rglob("*.md"))


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_direct_room_reads_and_writes_the_persons_memory(remembered, adapter):
    agent = remembered
    agent.model.push(
        calls_tool("remember", text="Lands in Lisbon at 9 on Friday", scope="user"),
        ok("Noted, see you Friday."),
    )
    answer = agent.turn(adapter, DIRECT, "I land in Lisbon at 9 on Friday")
    assert answer == {"reply": "Noted, see you Friday."}
    first = sent(agent, 0)
    assert "Likes rooftop venues" in first and "Scout books venues for the team" in first
    assert "Lands in Lisbon at 9 on Friday" in texts_under(agent.memory_root, "users/alice")
    reports = list(Exchange.objects.values_list("room_id", "person", "message", "reply"))
    assert reports == [
        ("dm-alice", "alice", "I land in Lisbon at 9 on Friday", "Noted, see you Friday.")
    ]


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_group_room_has_no_user_memory(remembered, adapter):
    agent = remembered
    agent.model.push(calls_tool("remember", text="Alice is vegetarian", scope="user"), ok("OK."))
    assert agent.turn(adapter, GROUP, "Book lunch for alice") == {"reply": "OK."}
    first, second = sent(agent, 0), sent(agent, 1)
    assert "Scout books venues for the team" in first
    assert "rooftop" not in first
    assert "User memory can't be used in a group room" in second  # the tool's answer
    assert "vegetarian" not in texts_under(agent.memory_root, "")
    assert list(Exchange.objects.values_list("room_id", "room_kind")) == [("team", "group")]


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_stopped_server_leaves_the_agent_running_without_memory(remembered, adapter):
    agent = remembered
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        stopped = f"http://127.0.0.1:{sock.getsockname()[1]}"
    agent.model.push(calls_tool("recall", query="venues"), ok("Let's pick a place together."))
    answer = agent.turn(adapter, DIRECT, "Where do we meet?", url=stopped)
    assert answer == {"reply": "Let's pick a place together."}
    assert "Scout books venues" not in sent(agent, 0)
    assert "Memory could not be searched (connection_failed)" in sent(agent, 1)
    assert Exchange.objects.count() == 0


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_no_report_without_a_delivered_reply_and_one_per_turn(remembered, adapter):
    agent = remembered
    agent.model.push(status(400))
    failed = agent.run(turn_command(adapter) + [json.dumps(DIRECT), "Hello there, what's new?"])
    assert failed.returncode != 0
    assert Exchange.objects.count() == 0
    agent.model.push(ok("First answer."), ok("Second answer."))
    agent.turn(adapter, DIRECT, "What's on today?")
    agent.turn(adapter, DIRECT, "And tomorrow?")
    assert list(Exchange.objects.order_by("id").values_list("message", "reply")) == [
        ("What's on today?", "First answer."),
        ("And tomorrow?", "Second answer."),
    ]
