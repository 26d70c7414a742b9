"""The MCP `changes` tool over /mcp: two bots in one project see each other's changes through
the feed, a group room sees no user memory, and a bad cursor is an MCP error with the API's
code."""

from memstore.registry.bots import bot_create, project_join
from memstore.registry.people import person_link
from memstore.registry.tokens import token_create
from tests.helpers import MCP_DIRECT, MCP_GROUP, mcp_http_client, run_async

TEAM = {**MCP_GROUP, "projects": ["apollo"]}


def call(url: str, token: str, *steps: tuple[str, dict]) -> list:
    async def step():
        async with mcp_http_client(url + "/mcp", token) as client:
            return [await client.call_tool(name, args) for name, args in steps]

    return run_async(step)


def test_two_bots_see_each_others_project_changes_and_no_user_memory(live_server, scout_token):
    bot_create(slug="ranger")
    project_join(bot="ranger", project="apollo")
    person_link(person="alice", bot="ranger")
    ranger = token_create(bot="ranger").token
    url = live_server.url
    call(
        url,
        ranger,
        (
            "remember",
            {**TEAM, "text": "Apollo ships on May 4", "scope": "project", "project": "apollo"},
        ),
    )
    call(url, ranger, ("remember", {**MCP_DIRECT, "text": "Alice prefers calls", "scope": "user"}))
    call(
        url,
        scout_token,
        (
            "remember",
            {**TEAM, "text": "QA signs off Friday", "scope": "project", "project": "apollo"},
        ),
    )

    (scout_feed,) = call(url, scout_token, ("changes", TEAM))
    (ranger_feed,) = call(url, ranger, ("changes", {**TEAM, "since": 0}))

    seen = [(e["text"], e["shard_bot"]) for e in scout_feed.structured_content["events"]]
    assert seen == [("Apollo ships on May 4", "ranger"), ("QA signs off Friday", "scout")]
    assert ranger_feed.structured_content["events"] == scout_feed.structured_content["events"]
    cursor = scout_feed.structured_content["cursor"]
    (again,) = call(url, scout_token, ("changes", {**TEAM, "since": cursor}))
    assert again.structured_content["events"] == []


def test_a_cursor_from_another_feed_is_an_error_with_the_apis_code(live_server, scout_token):
    (answer,) = call(live_server.url, scout_token, ("changes", {**TEAM, "since": 99}))
    assert answer.is_error
    assert "cursor_unknown: Cursor 99 is past the newest change" in answer.content[0].text
