"""GET /changes: every change a room may read, in order, after a cursor that outlives a
restart and `reindex`; the same read rules as every read (a group room never sees user
memory, a bot never another bot's own memory); an erased fact's events carry no text."""

import pytest
from django.core.management import call_command

from memstore.facts import markdown
from tests.helpers import BotClient, write_facts


def in_team(token: str) -> BotClient:
    return BotClient(token=token, room_id="team", room_kind="group", person="", projects="apollo")


@pytest.fixture
def a_team(tokens) -> BotClient:
    return in_team(tokens["a"])


@pytest.fixture
def b_team(tokens) -> BotClient:
    return in_team(tokens["b"])


def feed(client: BotClient, since: int = 0, **query) -> tuple[list[tuple], int]:
    answer = client.get("/changes", since=since, **query)
    assert answer.status == 200, answer.body
    events = [(e["type"], e["text"], e["scope"], e["shard_bot"]) for e in answer.body["events"]]
    return events, answer.body["cursor"]


def test_two_bots_in_a_project_see_each_others_changes_in_order(a_team, b_team):
    _, cursor = feed(b_team)
    assert (
        a_team.post(
            "/facts", {"text": "Launch is on May 4", "scope": "project", "project": "apollo"}
        ).status
        == 201
    )
    fact_id = markdown.fact_identity("Launch is on May 4")
    assert a_team.patch(f"/facts/{fact_id}", {"text": "Launch is on May 6"}).status == 200

    events, cursor = feed(b_team, cursor)

    assert events == [
        ("add", "Launch is on May 4", "project:apollo", "a"),
        ("edit", "Launch is on May 6", "project:apollo", "a"),
    ]
    assert b_team.post("/facts/forget", {"text": "Launch is on May 6"}).status == 409
    assert a_team.post("/facts/forget", {"text": "Launch is on May 6"}).status == 200
    assert feed(b_team, cursor)[0] == [("forget", "Launch is on May 6", "project:apollo", "a")]
    assert feed(a_team, cursor)[0] == [("forget", "Launch is on May 6", "project:apollo", "a")]


def test_a_group_rooms_feed_never_shows_user_memory_nor_another_bots_own(tokens, a_team):
    direct = BotClient(token=tokens["a"], room_id="dm", room_kind="direct", person="alice")
    assert (
        direct.post("/facts", {"text": "Alice is allergic to nuts", "scope": "user"}).status == 201
    )
    b_direct = BotClient(token=tokens["b"], room_id="dm-b", room_kind="direct", person="alice")
    assert b_direct.post("/facts", {"text": "B keeps its notes short"}).status == 201
    assert a_team.post("/facts", {"text": "Standup at nine"}).status == 201

    assert feed(a_team)[0] == [("add", "Standup at nine", "bot:a", "a")]
    assert feed(direct)[0] == [
        ("add", "Alice is allergic to nuts", "user:alice", "a"),
        ("add", "Standup at nine", "bot:a", "a"),
    ]


def test_a_hand_edit_is_in_the_feed(memory_root, a_team):
    _, cursor = feed(a_team)
    write_facts(memory_root, "projects/apollo/memory/by-agent/b/profile.md", "Budget is 40k")

    events = a_team.get("/changes", since=cursor).body["events"]

    assert [(e["type"], e["text"], e["via"], e["shard_bot"]) for e in events] == [
        ("add", "Budget is 40k", "hand-edit", "b")
    ]


def test_an_erased_facts_events_carry_no_text(a_team, b_team):
    body = {"text": "The vendor is Acme", "scope": "project", "project": "apollo"}
    assert a_team.post("/facts", body).status == 201
    assert feed(b_team)[0][0][1] == "The vendor is Acme"

    assert a_team.post("/facts/forget", {"text": "The vendor is Acme", "erase": True}).status == 200

    answer = b_team.get("/changes", since=0)
    assert [(e["type"], e["text"], e["erased"]) for e in answer.body["events"]] == [
        ("add", None, True),
        ("erase", None, True),
    ]
    assert "Acme" not in str(answer.body)


def test_the_cursor_outlives_a_reindex_and_moves_past_what_the_room_may_not_read(tokens, a_team):
    assert a_team.post("/facts", {"text": "First"}).status == 201
    _, cursor = feed(a_team)
    b_direct = BotClient(token=tokens["b"], room_id="dm-b", room_kind="direct", person="alice")
    assert b_direct.post("/facts", {"text": "Only b's"}).status == 201

    call_command("reindex", verbosity=0)
    assert a_team.post("/facts", {"text": "Second"}).status == 201

    events, later = feed(a_team, cursor)
    assert events == [("add", "Second", "bot:a", "a")]
    assert feed(a_team, later)[0] == []
    assert later > cursor


def test_a_page_at_a_time(a_team):
    for n in range(5):
        assert a_team.post("/facts", {"text": f"Fact number {n}"}).status == 201
    answer = a_team.get("/changes", since=0, limit=2)
    assert [e["text"] for e in answer.body["events"]] == ["Fact number 0", "Fact number 1"]
    assert answer.body["more"] is True
    rest = a_team.get("/changes", since=answer.body["cursor"], limit=10).body
    assert [e["text"] for e in rest["events"]] == [f"Fact number {n}" for n in (2, 3, 4)]
    assert rest["more"] is False


def test_a_cursor_from_another_feed_is_refused_clearly(a_team):
    answer = a_team.get("/changes", since=10_000)
    assert answer.status == 409
    assert answer.body["code"] == "cursor_unknown"
    assert "Read again from 0" in answer.body["message"]
    assert a_team.get("/changes", since=-1).status == 422


def test_a_fact_whose_until_day_passed_is_an_expire_event_once(a_team, b_team):
    from memstore.index import events

    _, cursor = feed(b_team)
    saved = a_team.post(
        "/facts",
        {
            "text": "Office closed for the move",
            "scope": "project",
            "project": "apollo",
            "until": "2026-01-31",
        },
    )
    assert saved.status == 201
    events._expiries_seen.clear()  # the day's first read: a new day for this process

    found, cursor = feed(b_team, cursor)

    assert found == [
        ("add", "Office closed for the move", "project:apollo", "a"),
        ("expire", "Office closed for the move", "project:apollo", "a"),
    ]
    events._expiries_seen.clear()
    assert feed(b_team, cursor)[0] == []  # recorded once, however often the day is read
