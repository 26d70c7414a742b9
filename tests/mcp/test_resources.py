"""MCP resources over a real socket with the official SDK's client: the bot's "About me" note
and its prompt's memory section, read as resources. The section honours the room exactly as the
prompt_section tool does: a person's memory only in their direct room, a refusal with the API's
code and no memory; a connection bound to a room reads that room's section and no other."""

import pytest
from mcp import MCPError

from memstore.prompt.notes import note_save
from memstore.registry.bots import bot_create
from memstore.registry.people import person_add, person_link
from tests.helpers import MCP_DIRECT, mcp_http_client, run_async, write_memory
from tests.mcp.oauth_flow import PASSWORD
from tests.mcp.test_oauth_sdk import Storage, _provider, _session

pytestmark = pytest.mark.django_db(transaction=True)

TEMPLATE = "memory://prompt/{room_kind}/{room_id}{?person,projects}"


@pytest.fixture
def memory(scout_token, memory_root):
    write_memory(
        memory_root,
        "users/alice/memory/by-agent/scout/profile.md",
        "- (2026-01-05) Alice drinks tea",
    )
    write_memory(
        memory_root, "agents/scout/memory/profile.md", "- (2026-01-05) Scout plans offsites"
    )
    note_save(kind="me", name="scout", text="I am Scout, the team's planner.")
    return scout_token


@pytest.fixture
def ann(django_user_model, settings, memory_root):
    """ann may sign in; ava acts for her (as in test_oauth_sdk)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("ann", password=PASSWORD)
    bot_create(slug="ava")
    person_add(name="ann", username="ann")
    person_link(person="ann", bot="ava")
    return memory_root


def _read(url: str, token: str, *uris: str):
    """Each uri's text, or the MCPError's message when the read was refused."""

    async def step():
        async with mcp_http_client(url, token) as client:
            out = []
            for uri in uris:
                try:
                    read = await client.read_resource(uri)
                    out.append(read.contents[0].text)
                except MCPError as refused:
                    out.append(f"refused: {refused}")
            return out

    return run_async(step)


def test_the_resources_are_listed(live_server, memory):
    async def step():
        async with mcp_http_client(live_server.url + "/mcp", memory) as client:
            return await client.list_resources(), await client.list_resource_templates()

    resources, templates = run_async(step)
    assert {str(r.uri) for r in resources.resources} == {"memory://about-me", "memory://prompt"}
    assert [t.uri_template for t in templates.resource_templates] == [TEMPLATE]
    assert all(r.description for r in resources.resources)


def test_about_me_is_the_bots_own_note(live_server, memory):
    (text,) = _read(live_server.url + "/mcp", memory, "memory://about-me")
    assert text.rstrip("\n") == "I am Scout, the team's planner."


def test_the_prompt_resource_is_the_prompt_tools_section_for_that_room(live_server, memory):
    url = live_server.url + "/mcp"

    async def tool():
        async with mcp_http_client(url, memory) as client:
            return await client.call_tool("prompt_section", MCP_DIRECT)

    # The tool first: a group read marks the bot "in groups", which changes its own block.
    by_tool = run_async(tool).structured_content["text"]
    direct, group = _read(
        url, memory, "memory://prompt/direct/dm-42?person=alice", "memory://prompt/group/team"
    )
    assert direct == by_tool
    assert "Alice drinks tea" in direct and "Scout plans offsites" in direct
    assert "I am Scout" in direct  # the always-on notes open the section
    assert "Alice drinks tea" not in group and "Scout plans offsites" in group


def test_a_room_the_bot_may_not_read_is_refused_without_memory(live_server, memory):
    url = live_server.url + "/mcp"
    unknown, projects, unbound, odd = _read(
        url,
        memory,
        "memory://prompt/direct/dm-7?person=mallory",
        "memory://prompt/group/team?projects=apollo,zeus",
        "memory://prompt",
        "memory://prompt/lobby/team",
    )
    assert unknown.startswith("refused: person_unknown") and "tea" not in unknown, unknown
    assert projects.startswith("refused: forbidden") and "offsites" not in projects
    assert unbound.startswith("refused: invalid_request") and "not bound to a room" in unbound
    assert odd.startswith("refused: invalid_request") and "room_kind" in odd, odd


def test_a_connection_bound_to_a_room_reads_that_rooms_section_and_no_other(live_server, ann):
    # Signed in with OAuth "as ann, in a direct room": memory://prompt is that room's section.
    write_memory(ann, "users/ann/memory/by-agent/ava/profile.md", "- (2026-01-05) Ann rides a bike")
    write_memory(ann, "agents/ava/memory/profile.md", "- (2026-01-05) Ava books the rooms")
    base = live_server.url
    provider = _provider(base, Storage(), [])

    async def steps(client):
        out = []
        for uri in ("memory://prompt", "memory://prompt/group/team"):
            try:
                out.append((await client.read_resource(uri)).contents[0].text)
            except MCPError as refused:
                out.append(f"refused: {refused}")
        return out

    bound, other = run_async(lambda: _session(base, provider, steps))
    assert "Ann rides a bike" in bound and "Ava books the rooms" in bound
    assert other.startswith("refused: room_bound") and "Ava books" not in other, other
