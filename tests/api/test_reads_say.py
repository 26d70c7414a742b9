"""Reads that say what happened (issue 38): unknown query parameters refused with the known
ones, `type` as a real filter of the facts list, one row per fact however many shards hold it,
the change list telling "left the budget" from "removed", explain saying no readable fact holds
a text, and a private claim contradicting a room's binding refused both ways."""

from memstore.facts.markdown import fact_identity
from tests.helpers import BotClient, shard_dir, write_facts, write_memory


def test_an_unknown_query_parameter_is_refused_with_the_known_ones(memory_root, bot_a):
    answer = bot_a.get("/facts", type="decision", colour="red")
    assert answer.status == 422, answer.body
    assert answer.body["code"] == "invalid_request"
    assert answer.body["detail"]["unknown"] == ["colour"]
    assert "type" in answer.body["detail"]["known"]
    assert "colour" in answer.body["message"] and "scope" in answer.body["message"]


def test_every_endpoint_refuses_unknown_query_parameters(memory_root, bot_a):
    for method, path, body in (
        ("GET", "/recall", None),
        ("GET", "/prompt", None),
        ("POST", "/prompt/changes", {"previous": ""}),
        ("POST", "/facts", {"text": "Likes tea"}),
        ("GET", "/me", None),
    ):
        answer = bot_a.call(method, path, body, query="x", sneaky="1")
        assert answer.status == 422, (path, answer.body)
        assert answer.body["detail"]["unknown"] == (
            ["sneaky"] if path in ("/recall",) else ["query", "sneaky"]
        ), path
    assert bot_a.get("/recall", query="tea").status == 200
    assert not (memory_root / "agents").exists() or "Likes tea" not in str(
        list((memory_root / "agents").rglob("*.md"))
    )


def test_facts_filter_by_type(memory_root, bot_a):
    write_memory(
        memory_root,
        f"{shard_dir('bot', 'a', 'a')}/profile.md",
        "- (2026-11-01) Ship on Fridays <!-- type=decision -->",
        "- (2026-11-01) Likes green tea <!-- type=preference -->",
        "- (2026-11-01) The office is in Lisbon",
    )
    decisions = bot_a.get("/facts", type="decision")
    assert decisions.status == 200, decisions.body
    assert [f["text"] for f in decisions.body["items"]] == ["Ship on Fridays"]
    plain = bot_a.get("/facts", type="fact").body["items"]
    assert [f["text"] for f in plain] == ["The office is in Lisbon"]
    assert bot_a.get("/facts", type="rumour").status == 422
    current = bot_a.get("/facts", expired="false").body  # no `until` is not expired
    assert current["total"] == 3


def test_a_fact_two_shards_hold_is_listed_once_naming_the_other(memory_root, tokens):
    for bot, day in (("a", "2026-11-01"), ("b", "2026-11-03")):
        write_facts(
            memory_root,
            f"{shard_dir('project', 'apollo', bot)}/profile.md",
            "Launch is in May",
            day=day,
        )
    a = BotClient(token=tokens["a"], projects="apollo")
    listed = a.get("/facts", scope="project", project="apollo").body
    assert listed["total"] == 1
    [row] = listed["items"]
    assert (row["bot"], str(row["date"])) == ("b", "2026-11-03")  # the newest copy stands
    assert row["also_in"] == [
        {
            "id": fact_identity("Launch is in May"),
            "scope": "project",
            "scope_name": "apollo",
            "bot": "a",
            "file": "projects/apollo/memory/by-agent/a/profile.md",
        }
    ]
    as_of = a.get("/facts", scope="project", project="apollo", as_of="2026-12-01").body
    assert as_of["total"] == 1 and as_of["items"][0]["also_in"][0]["bot"] == "a"


def test_changes_tell_a_fact_that_left_the_budget_from_one_removed(memory_root, bot_a, settings):
    settings.PROMPT_BUDGETS = {"bot": {"recent": (2, 4_000)}}
    write_memory(
        memory_root,
        f"{shard_dir('bot', 'a', 'a')}/log/2026-10.md",
        "- (2026-10-01) Standup is at 9:30",
        "- (2026-10-02) The wiki moved to Notion",
        "- (2026-10-03) Lunch is on Thursdays",
    )
    before = bot_a.get("/prompt").body["text"]
    assert "Lunch is on Thursdays" in before and "The wiki moved to Notion" in before
    for text in ("Deploys need two reviews", "The office closes at six"):
        assert bot_a.post("/facts", {"text": text}).status == 201
    assert bot_a.post("/facts/forget", {"text": "Lunch is on Thursdays"}).status == 200

    changes = bot_a.post("/prompt/changes", {"previous": before})
    assert changes.status == 200, changes.body
    assert [line.split(") ", 1)[1] for line in changes.body["removed"]] == ["Lunch is on Thursdays"]
    assert [line.split(") ", 1)[1] for line in changes.body["left"]] == ["The wiki moved to Notion"]
    assert len(changes.body["added"]) == 2
    text = changes.body["text"]
    assert "\u2212 (2026-10-03) Lunch is on Thursdays" in text
    assert "still in memory" in text and "~ (2026-10-02) The wiki moved to Notion" in text


def test_explain_says_no_readable_fact_holds_a_text_nobody_saved(memory_root, bot_a, settings):
    settings.EMBEDDINGS = "none"
    write_facts(memory_root, f"{shard_dir('bot', 'a', 'a')}/profile.md", "Likes green tea")
    answer = bot_a.get(
        "/recall", query="tea", explain="true", expect=["purple elephants", "0123456789abcdef"]
    )
    assert answer.status == 200, answer.body
    reasons = [e["reason"] for e in answer.body["explain"]["expected"]]
    assert reasons == [
        "No fact this room may read holds this text.",
        "No fact this room may read has this id.",
    ]
    assert all("visible" not in reason for reason in reasons)


def test_a_private_room_cant_be_called_shared_later(tokens, memory_root):
    board = BotClient(token=tokens["a"], room_id="board", room_kind="group", person="")
    assert board.get("/prompt", HTTP_X_ROOM_PRIVATE="true").status == 200  # binds it private
    answer = board.get("/prompt", HTTP_X_ROOM_PRIVATE="false")
    assert (answer.status, answer.body["code"]) == (409, "room_conflict")
    assert "is a private group room" in answer.body["message"]
    assert "not a shared one" in answer.body["message"]
    assert board.post("/facts", {"text": "x"}, HTTP_X_ROOM_PRIVATE="false").status == 409
    assert board.get("/prompt").status == 200  # saying nothing is no claim
    assert board.get("/prompt", HTTP_X_ROOM_PRIVATE="true").status == 200
    assert not list(memory_root.rglob("*.md"))
