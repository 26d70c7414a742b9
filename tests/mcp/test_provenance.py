"""Who saved a line, on the line itself, through MCP: a bot token's save names the bot and the
door (`by=`, `via=tool`); a connection a person made "as me" also names that person (`for=`)."""

import json

import pytest
from django.test import Client

from memstore.facts.markdown import parse_text
from memstore.registry.bots import bot_create
from memstore.registry.people import person_add, person_link
from tests.mcp.oauth_flow import PASSWORD, Flow, tool_call

ACCEPT = "application/json, text/event-stream"


def _facts(memory_root, rel: str) -> dict[str, dict[str, str]]:
    lines = parse_text((memory_root / rel).read_text())
    return {line.fact.text: line.fact.meta for line in lines if line.fact}


def test_a_bot_tokens_save_names_the_bot_and_the_door(scout_token, memory_root):
    arguments = {"room_id": "team", "room_kind": "group", "text": "The offsite is in Porto"}
    response = Client(HTTP_HOST="localhost").post(
        "/mcp",
        data=json.dumps(tool_call("remember", arguments)),
        content_type="application/json",
        HTTP_ACCEPT=ACCEPT,
        HTTP_AUTHORIZATION=f"Bearer {scout_token}",
    )
    assert response.json()["result"]["isError"] is False, response.content
    [(rel, meta)] = [
        (path.relative_to(memory_root).as_posix(), meta)
        for path in memory_root.rglob("*.md")
        for text, meta in _facts(memory_root, path.relative_to(memory_root)).items()
        if text == "The offsite is in Porto"
    ]
    assert rel.startswith("agents/scout/memory/log/")
    assert meta == {"by": "scout", "via": "tool"}


@pytest.mark.django_db(transaction=True)
def test_a_save_through_a_connection_as_me_names_the_person(
    live_server, django_user_model, settings, memory_root
):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("ann", password=PASSWORD)
    bot_create(slug="ava")
    person_add(name="ann", username="ann")
    person_link(person="ann", bot="ava")
    flow = Flow(live_server.url)
    access = flow.tokens()["access_token"]
    saved = flow.mcp(access, tool_call("remember", {"text": "Prefers aisle seats"}))
    assert saved.json()["result"]["isError"] is False, saved.text
    [path] = [p for p in memory_root.rglob("*.md") if "Prefers aisle seats" in p.read_text()]
    meta = _facts(memory_root, path.relative_to(memory_root))["Prefers aisle seats"]
    assert (meta["by"], meta["via"], meta["for"]) == ("ava", "tool", "ann")
