"""Grants and feedback at /mcp: a bot token with memory:read only may call the reading tools and is refused
every writing tool with 403 `missing_grant` naming memory:write; the tools are walked from the
server's registry, so a new tool can't be left out (one missing from TOOL_SCOPES counts as a
write). A bot with `read` membership of a project reads it but may not write it."""

import json

from django.test import Client

from memoryconsole.mcp.oauth import scope_needed, server_tool_names
from memoryconsole.mcp.tools import TOOL_SCOPES
from memstore.registry.bots import project_join
from memstore.registry.tokens import token_create

ACCEPT = "application/json, text/event-stream"
ROOM = {"room_id": "r1", "room_kind": "direct", "person": "alice"}


def _call(token: str, tool: str, arguments: dict) -> tuple[int, dict]:
    body = {"jsonrpc": "2.0", "id": 3, "method": "tools/call"}
    body["params"] = {"name": tool, "arguments": arguments}
    response = Client(HTTP_HOST="localhost").post(
        "/mcp",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_ACCEPT=ACCEPT,
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    return response.status_code, response.json()


def test_every_tool_has_a_grant():
    assert server_tool_names() == set(TOOL_SCOPES)
    assert {"remember", "forget", "edit_fact", "report_exchange", "summarize"} <= {
        name for name in server_tool_names() if scope_needed(name) == "memory:write"
    }


def test_a_read_only_token_is_refused_every_write_tool(scout_token, memory_root):
    reader = token_create(bot="scout", scopes=["memory:read"]).token
    writing = [name for name in sorted(server_tool_names()) if scope_needed(name) != "memory:read"]
    assert len(writing) >= 5
    for tool in writing:
        status, body = _call(reader, tool, {**ROOM, "text": "Prefers tea"})
        assert status == 403, tool
        message = body["error"]["message"]
        assert message.startswith(
            f"missing_grant: This token has memory:read only; memory:write is needed to call "
            f"{tool}."
        ), message
        assert body["id"] == 3
    assert not list(memory_root.rglob("*.md"))  # nothing was written
    # The full token writes; the read-only one reads what it wrote.
    status, saved = _call(scout_token, "remember", {**ROOM, "text": "Prefers tea"})
    assert (status, saved["result"]["isError"]) == (200, False)
    status, found = _call(reader, "recall", {**ROOM, "query": "tea"})
    assert (status, found["result"]["isError"]) == (200, False)
    assert found["result"]["structuredContent"]["items"][0]["text"] == "Prefers tea"


def test_read_membership_refuses_a_project_write(scout_token):
    project_join(bot="scout", project="apollo", access="read")
    project = {**ROOM, "projects": ["apollo"], "scope": "project", "project": "apollo"}
    status, body = _call(scout_token, "remember", {**project, "text": "Launch is in March"})
    assert status == 200 and body["result"]["isError"] is True
    text = body["result"]["content"][0]["text"]
    assert "missing_grant: Bot 'scout' has read access to project 'apollo'" in text
    status, listed = _call(scout_token, "list_facts", {**ROOM, "projects": ["apollo"]})
    assert listed["result"]["isError"] is False


def test_feedback_wrong_leaves_the_next_prompt_section(scout_token, memory_root):
    status, saved = _call(scout_token, "remember", {**ROOM, "text": "The office is in Lisbon"})
    fact = saved["result"]["structuredContent"]
    _, section = _call(scout_token, "prompt_section", ROOM)
    assert "office is in Lisbon" in section["result"]["structuredContent"]["text"]
    status, marked = _call(scout_token, "feedback", {**ROOM, "id": fact["id"], "verb": "wrong"})
    assert (status, marked["result"]["isError"]) == (200, False), marked
    out = marked["result"]["structuredContent"]
    assert (out["verb"], out["copies"], out["fact"]["meta"]["mark"]) == ("wrong", 1, "wrong")
    _, section = _call(scout_token, "prompt_section", ROOM)
    assert "office is in Lisbon" not in section["result"]["structuredContent"]["text"]
    _, found = _call(scout_token, "recall", {**ROOM, "query": "office Lisbon"})
    assert found["result"]["structuredContent"]["items"] == []
    assert "mark=wrong" in next(memory_root.glob("agents/scout/memory/log/*.md")).read_text()
    _, bad = _call(scout_token, "feedback", {**ROOM, "id": fact["id"], "verb": "meh"})
    assert bad["result"]["isError"] is True
