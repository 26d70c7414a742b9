"""The MCP server at /mcp, driven by the official SDK's client over a real socket: the same
rules as the JSON API (one implementation underneath), MCP errors and never data when refused."""

import re
import shlex

import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

from memstore.models import Bot
from tests.helpers import (
    MCP_DIRECT,
    MCP_GROUP,
    REPO,
    FakeModel,
    mcp_http_client,
    ok,
    run_async,
    run_command,
)

TOOLS = {
    "remember": (False, False),
    "recall": (True, False),
    "forget": (False, True),
    "list_facts": (True, False),
    "edit_fact": (False, True),
    "prompt_section": (True, False),
    "report_exchange": (False, False),
    "summarize": (False, False),
    "changes": (True, False),
}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_initialize_and_list_tools(live_server, scout_token, mode):
    async def step():
        async with mcp_http_client(live_server.url + "/mcp", scout_token, mode) as client:
            listed = await client.list_tools()
            return client.server_info, listed.tools

    info, tools = run_async(step)
    assert info is None or info.name == "memory-console"
    found = {t.name: (t.annotations.read_only_hint, t.annotations.destructive_hint) for t in tools}
    assert {name: found[name] for name in TOOLS} == TOOLS
    remember = next(t for t in tools if t.name == "remember")
    assert {"room_id", "room_kind", "person", "projects", "text"} <= set(
        remember.input_schema["properties"]
    )
    assert set(remember.input_schema["required"]) == {"room_id", "room_kind", "text"}


def test_every_tool_over_http(live_server, scout_token, memory_root):
    async def step():
        async with mcp_http_client(live_server.url + "/mcp", scout_token) as client:
            out = {}
            saved = await client.call_tool(
                "remember", {**MCP_DIRECT, "text": "Prefers morning meetings", "scope": "user"}
            )
            out["saved"] = saved.structured_content
            again = await client.call_tool(
                "remember", {**MCP_DIRECT, "text": "prefers  morning MEETINGS", "scope": "user"}
            )
            out["again"] = again.structured_content
            await client.call_tool(
                "remember",
                {
                    **MCP_DIRECT,
                    "projects": ["apollo"],
                    "text": "Apollo launches on 3 March",
                    "scope": "project",
                    "project": "apollo",
                    "tier": "profile",
                },
            )
            recalled = await client.call_tool("recall", {**MCP_DIRECT, "query": "meetings"})
            out["recalled"] = recalled.structured_content
            listed = await client.call_tool("list_facts", {**MCP_DIRECT, "projects": ["apollo"]})
            out["listed"] = listed.structured_content
            edited = await client.call_tool(
                "edit_fact",
                {**MCP_DIRECT, "id": out["saved"]["id"], "text": "Prefers afternoon meetings"},
            )
            out["edited"] = edited.structured_content
            section = await client.call_tool(
                "prompt_section", {**MCP_DIRECT, "projects": ["apollo"]}
            )
            out["section"] = section.structured_content
            reported = await client.call_tool(
                "report_exchange",
                {
                    **MCP_DIRECT,
                    "message": "thanks!",
                    "reply": "Any time.",
                    "message_id": "m1",
                    "reply_id": "r1",
                },
            )
            out["reported"] = reported.structured_content
            forgot = await client.call_tool(
                "forget", {**MCP_DIRECT, "text": "prefers AFTERNOON meetings"}
            )
            out["forgot"] = forgot.structured_content
            return out

    out = run_async(step)
    month = out["saved"]["date"][:7]
    assert out["saved"]["file"] == f"users/alice/memory/by-agent/scout/log/{month}.md"
    assert (out["saved"]["existed"], out["again"]["existed"]) == (False, True)
    assert out["again"]["id"] == out["saved"]["id"]
    assert [f["text"] for f in out["recalled"]["items"]] == ["Prefers morning meetings"]
    assert {f["text"] for f in out["listed"]["items"]} == {
        "Prefers morning meetings",
        "Apollo launches on 3 March",
    }
    assert out["edited"]["text"] == "Prefers afternoon meetings"
    assert "Prefers afternoon meetings" in out["section"]["text"]
    assert "Apollo launches on 3 March" in out["section"]["text"]
    assert (out["reported"]["status"], out["reported"]["reason"]) == ("skipped", "off")  # no model
    assert out["forgot"]["forgotten"] == 1
    log = memory_root / out["saved"]["file"]
    assert "meetings" not in log.read_text()


def test_a_wrong_token_is_an_mcp_error(live_server, scout_token):
    async def step():
        async with mcp_http_client(live_server.url + "/mcp", "mct_not-a-token") as client:
            await client.list_tools()

    with pytest.raises(BaseExceptionGroup) as raised:
        run_async(step)
    errors = raised.value.exceptions
    while isinstance(errors[0], BaseExceptionGroup):
        errors = errors[0].exceptions
    assert isinstance(errors[0], MCPError)
    assert "valid bot token" in str(errors[0])


def test_user_memory_from_a_group_room_is_refused_without_data(live_server, scout_token):
    async def step():
        async with mcp_http_client(live_server.url + "/mcp", scout_token) as client:
            await client.call_tool(
                "remember", {**MCP_DIRECT, "text": "Alice likes jazz", "scope": "user"}
            )
            return [
                await client.call_tool(
                    "remember", {**MCP_GROUP, "text": "Alice likes rock", "scope": "user"}
                ),
                await client.call_tool("list_facts", {**MCP_GROUP, "scope": "user"}),
                await client.call_tool("recall", {**MCP_GROUP, "query": "jazz"}),
            ]

    wrote, listed, recalled = run_async(step)
    for refused in (wrote, listed):
        assert refused.is_error
        assert refused.structured_content is None
        assert "forbidden" in refused.content[0].text
        assert "jazz" not in refused.content[0].text
    assert not recalled.is_error
    assert recalled.structured_content["items"] == []


def test_only_an_answered_group_call_marks_the_bot_in_groups(live_server, scout_token):
    async def step(arguments: dict):
        async with mcp_http_client(live_server.url + "/mcp", scout_token) as client:
            return await client.call_tool("remember", arguments)

    refused = run_async(lambda: step({**MCP_GROUP, "text": "Alice likes rock", "scope": "user"}))
    assert refused.is_error and not Bot.objects.get(slug="scout").in_groups
    run_async(lambda: step({**MCP_DIRECT, "text": "Alice likes jazz"}))
    assert not Bot.objects.get(slug="scout").in_groups  # a direct room says nothing of groups
    answered = run_async(lambda: step({**MCP_GROUP, "text": "The team ships on Fridays"}))
    assert not answered.is_error and Bot.objects.get(slug="scout").in_groups


def test_the_write_rules_are_the_apis(live_server, scout_token, memory_root):
    async def step():
        async with mcp_http_client(live_server.url + "/mcp", scout_token) as client:
            return [
                await client.call_tool(
                    "remember",
                    {
                        **MCP_DIRECT,
                        "text": "Key sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f",
                        "scope": "user",
                    },
                ),
                await client.call_tool("remember", {**MCP_GROUP, "text": "x" * 501}),
                await client.call_tool(
                    "remember",
                    {**MCP_GROUP, "text": "Launch", "scope": "project", "project": "zeus"},
                ),
            ]

    secret, too_long, not_joined = run_async(step)
    assert secret.is_error and "secret_refused" in secret.content[0].text
    assert too_long.is_error and "invalid_request" in too_long.content[0].text
    assert not_joined.is_error and "forbidden" in not_joined.content[0].text
    assert not list(memory_root.rglob("*.md"))


def test_summarize_uses_the_learning_model(live_server, scout_token, memory_root, settings):
    model = FakeModel()
    settings.LEARNING_BASE_URL, settings.LEARNING_MODEL = model.url, "scripted"
    settings.LEARNING_MODE = "write"
    model.push(ok("profile: Alice leads the Apollo launch\nlog: Her password is hunter22\n"))

    async def step():
        async with mcp_http_client(live_server.url + "/mcp", scout_token) as client:
            return await client.call_tool(
                "summarize", {**MCP_DIRECT, "text": "Alice leads the launch. Password: hunter22."}
            )

    try:
        result = run_async(step).structured_content
    finally:
        model.close()
    assert [f["text"] for f in result["saved"]] == ["Alice leads the Apollo launch"]
    assert [(r["text"], r["reason"]) for r in result["refused"]] == [
        ("Her password is hunter22", "secret")
    ]
    assert result["scope"] == "user:alice"


def _python_example() -> tuple[list[list[str]], str]:
    guide = (REPO / "docs" / "mcp.md").read_text().split("### From Python", 1)[1]
    setup = re.search(r"```sh\n(.*?)```", guide, re.S).group(1)
    commands = [
        shlex.split(line.split("memory-console manage ", 1)[1].split("#")[0])
        for line in setup.splitlines()
        if "memory-console manage " in line
    ]
    return commands, re.search(r"```python\n(.*?)```", guide, re.S).group(1)


def test_the_python_example_in_the_docs_runs_as_printed_setup_included(
    live_server, transactional_db, memory_root
):
    setup, code = _python_example()
    token = ""
    for args in setup:  # the setup the guide prints, in a fresh workspace
        printed = run_command(*args).strip()
        token = printed.splitlines()[-1] if args[:2] == ["bots", "token"] else token
    names: dict = {}
    exec(compile(code, "docs/mcp.md", "exec"), names)  # noqa: S102 - our own documentation

    found = run_async(lambda: names["main"](live_server.url + "/mcp", token))

    assert [(f["text"], f["scope"]) for f in found] == [("Prefers morning meetings", "user")]


def test_the_python_example_says_why_a_call_was_refused(live_server, scout_token):
    _, code = _python_example()
    names: dict = {}
    exec(compile(code, "docs/mcp.md", "exec"), names)  # noqa: S102 - our own documentation
    names["ROOM"]["person"] = "nobody"  # not registered: refused, said, no TypeError

    with pytest.raises(BaseExceptionGroup) as raised:  # anyio's task groups wrap it
        run_async(lambda: names["main"](live_server.url + "/mcp", scout_token))
    refused = raised.value
    while isinstance(refused, BaseExceptionGroup):
        refused = refused.exceptions[0]
    assert isinstance(refused, RuntimeError)
    assert str(refused).startswith("prompt_section refused:") and "person_unknown" in str(refused)


def test_room_tickets_are_required_when_the_deployment_wants_them(
    live_server, scout_token, settings
):
    from memstore.rooms.tickets import room_ticket

    settings.ROOM_TICKET_KEY = "k" * 32
    ticket = room_ticket(key="k" * 32, bot="scout", room_id="team", kind="group")

    async def call(headers: dict):
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {scout_token}", **headers}) as h,
            Client(streamable_http_client(live_server.url + "/mcp", http_client=h)) as client,
        ):
            return await client.call_tool("recall", {**MCP_GROUP, "query": "jazz"})

    refused = run_async(lambda: call({}))
    assert refused.is_error and "ticket_missing:" in refused.content[0].text
    assert not run_async(lambda: call({"X-Room-Ticket": ticket})).is_error


def test_forget_with_erase_leaves_no_history_over_mcp(live_server, scout_token, memory_root):
    """MCP's forget takes `erase` as the API does: the text goes from the file and from the
    shard's history too (a plain forget keeps it in history)."""

    async def step():
        async with mcp_http_client(live_server.url + "/mcp", scout_token) as client:
            for text in ("Door code rotates weekly", "Likes the blue mugs"):
                await client.call_tool("remember", {**MCP_DIRECT, "text": text, "scope": "user"})
            plain = await client.call_tool("forget", {**MCP_DIRECT, "text": "Likes the blue mugs"})
            erased = await client.call_tool(
                "forget", {**MCP_DIRECT, "text": "Door code rotates weekly", "erase": True}
            )
            return plain.structured_content, erased.structured_content

    plain, erased = run_async(step)
    assert plain["forgotten"] == 1 and erased["forgotten"] == 1
    history = "".join(p.read_text() for p in memory_root.rglob("history.jsonl"))
    assert "Likes the blue mugs" in history  # a plain forget keeps its history
    assert "Door code rotates weekly" not in history


def test_until_over_mcp_expires_and_an_edit_brings_it_back(live_server, scout_token, memory_root):
    from datetime import date, timedelta

    yesterday = (date.today() - timedelta(days=1)).isoformat()
    tomorrow = (date.today() + timedelta(days=1)).isoformat()

    async def step():
        async with mcp_http_client(live_server.url + "/mcp", scout_token) as client:
            out = {}
            saved = await client.call_tool(
                "remember", {**MCP_DIRECT, "text": "Travelling to Lisbon", "until": yesterday}
            )
            out["saved"] = saved.structured_content
            out["recalled"] = (
                await client.call_tool("recall", {**MCP_DIRECT, "query": "Lisbon"})
            ).structured_content
            out["expired"] = (
                await client.call_tool("list_facts", {**MCP_DIRECT, "expired": True})
            ).structured_content
            base = {**MCP_DIRECT, "id": out["saved"]["id"], "text": "Travelling to Lisbon"}
            out["later"] = (
                await client.call_tool("edit_fact", {**base, "until": tomorrow})
            ).structured_content
            out["back"] = (
                await client.call_tool("recall", {**MCP_DIRECT, "query": "Lisbon"})
            ).structured_content
            out["removed"] = (
                await client.call_tool("edit_fact", {**base, "until": ""})
            ).structured_content
            out["refused"] = await client.call_tool(
                "remember", {**MCP_DIRECT, "text": "Soon", "until": "soon"}
            )
            return out

    out = run_async(step)
    assert out["saved"]["meta"]["until"] == yesterday and out["saved"]["expired"] is True
    assert out["recalled"]["items"] == []
    assert [f["text"] for f in out["expired"]["items"]] == ["Travelling to Lisbon"]
    saved_by = {"by": "scout", "via": "tool"}  # an edit keeps who saved the line
    assert (out["later"]["meta"], out["later"]["expired"]) == (
        {"until": tomorrow} | saved_by,
        False,
    )
    assert [f["text"] for f in out["back"]["items"]] == ["Travelling to Lisbon"]
    assert out["removed"]["meta"] == saved_by
    assert out["refused"].is_error
    assert "until" in out["refused"].content[0].text
