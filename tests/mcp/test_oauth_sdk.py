"""The MCP SDK's own OAuth client against the live server: it gets a 401, discovers the
metadata, registers itself, sends the person to the consent page (played here over HTTP as a
signed-in person), trades the code with PKCE, lists the tools and calls them; later it refreshes
its expired access token by itself. Bot tokens keep working beside it."""

import time
from datetime import timedelta

import httpx2
import pytest
from django.utils import timezone
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from memstore.models import OAuthGrant, RoomBinding
from memstore.models import OAuthToken as TokenRow
from memstore.registry.bots import bot_create
from memstore.registry.people import person_add, person_link
from memstore.registry.tokens import token_create
from tests.helpers import MCP_GROUP, run_async
from tests.mcp.oauth_flow import PASSWORD, REDIRECT, code_of, consent, logged_in

pytestmark = pytest.mark.django_db(transaction=True)


class Storage:
    """The SDK's TokenStorage, in memory (a real client keeps it on disk)."""

    def __init__(self):
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


@pytest.fixture
def ann(django_user_model, settings, memory_root):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("ann", password=PASSWORD)
    bot_create(slug="ava", display_name="Ava")
    person_add(name="ann", username="ann")
    person_link(person="ann", bot="ava")
    return memory_root


def _provider(
    base: str, storage: Storage, sent_to: list[str], choices: list[dict] | None = None
) -> OAuthClientProvider:
    person = logged_in(base, "ann")
    answer: dict[str, str] = {}

    async def redirect_handler(url: str) -> None:
        # The browser's part: the person opens the page, keeps "as me", presses Allow (with
        # the next of `choices` changed, if any).
        sent_to.append(url)
        changed = choices.pop(0) if choices else {}
        answer.update(code_of(consent(person, url, bot="ava", **changed)))

    async def callback_handler() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=answer["code"], state=answer.get("state"))

    return OAuthClientProvider(
        server_url=base + "/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="Desktop assistant",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )


async def _session(base: str, provider: OAuthClientProvider, steps):
    async with (
        httpx2.AsyncClient(auth=provider, timeout=30) as http,
        Client(streamable_http_client(base + "/mcp", http_client=http)) as client,
    ):
        return await steps(client)


def test_sdk_oauth_client_signs_in_lists_tools_and_calls_them(live_server, ann):
    base = live_server.url
    storage, sent_to = Storage(), []

    async def steps(client):
        listed = await client.list_tools()
        saved = await client.call_tool("remember", {"text": "Prefers tea", "scope": "user"})
        found = await client.call_tool("recall", {"query": "tea"})
        return listed.tools, saved, found

    provider = _provider(base, storage, sent_to)
    tools, saved, found = run_async(lambda: _session(base, provider, steps))

    # One trip to the consent page, for S256 PKCE, asking for this server's /mcp.
    assert len(sent_to) == 1
    assert "code_challenge_method=S256" in sent_to[0]
    assert f"resource={base.replace(':', '%3A').replace('/', '%2F')}%2Fmcp" in sent_to[0]
    # Bound "as me, in a direct room": no room arguments, every tool titled.
    assert {t.name for t in tools} >= {"remember", "recall", "forget", "prompt_section"}
    assert all(t.title for t in tools)
    for tool in tools:
        assert not {"room_id", "room_kind", "person", "projects"} & set(
            tool.input_schema["properties"]
        ), tool.name
    assert not saved.is_error, saved.content
    assert saved.structured_content["scope"] == "user"
    assert not found.is_error
    assert [f["text"] for f in found.structured_content["items"]] == ["Prefers tea"]
    # It was saved in ann's memory, as ava, from the bound direct room.
    profile = ann / "users/ann/memory/by-agent/ava/log"
    written = "".join(p.read_text() for p in profile.glob("*.md"))
    assert "Prefers tea" in written
    rooms = RoomBinding.objects.values_list("room_id", "kind", "person", "first_bot")
    assert list(rooms) == [("mcp-ava-ann", "direct", "ann", "ava")]

    # An hour later the access token has expired (on the server, and by the client's clock):
    # the SDK refreshes it by itself, the refresh token rotates, and the call goes through
    # without another trip to the consent page.
    first = storage.tokens
    TokenRow.objects.filter(kind="access").update(expires_at=timezone.now() - timedelta(seconds=1))
    provider.context.token_expiry_time = time.time() - 1

    async def later(client):
        return await client.call_tool("recall", {"query": "tea"})

    result = run_async(lambda: _session(base, provider, later))
    assert len(sent_to) == 1  # no second sign-in
    assert not result.is_error, result.content
    assert storage.tokens.access_token != first.access_token
    assert storage.tokens.refresh_token != first.refresh_token
    assert TokenRow.objects.filter(kind="refresh", used_at__isnull=False).count() == 1


def test_sdk_steps_up_when_a_read_only_connection_calls_a_writing_tool(live_server, ann):
    base = live_server.url
    storage, sent_to = Storage(), []
    provider = _provider(base, storage, sent_to, choices=[{"scopes": ["memory:read"]}])

    async def steps(client):
        found = await client.call_tool("recall", {"query": "tea"})
        saved = await client.call_tool("remember", {"text": "Likes green tea", "scope": "user"})
        return found, saved

    found, saved = run_async(lambda: _session(base, provider, steps))
    # The first sign-in allowed reading only; remember got 403 insufficient_scope, and the SDK
    # sent the person back to the consent page asking for both scopes, then retried.
    assert len(sent_to) == 2
    assert "scope=memory%3Aread+memory%3Awrite" in sent_to[1]
    assert not found.is_error and not saved.is_error, saved.content
    assert storage.tokens.scope == "memory:read memory:write"
    live = OAuthGrant.objects.filter(revoked_at__isnull=True)
    assert [g.scopes for g in live] == [["memory:read", "memory:write"]]  # the first one ended


def test_bot_tokens_keep_working_beside_oauth(live_server, ann):
    token = token_create(bot="ava").token

    async def steps():
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
            Client(streamable_http_client(live_server.url + "/mcp", http_client=http)) as client,
        ):
            listed = await client.list_tools()
            found = await client.call_tool("recall", {**MCP_GROUP, "query": "anything"})
            missing = await client.call_tool("recall", {"query": "anything"})
            return listed.tools, found, missing

    tools, found, missing = run_async(steps)
    remember = next(t for t in tools if t.name == "remember")
    assert {"room_id", "room_kind", "text"} <= set(remember.input_schema["required"])
    assert not found.is_error
    assert missing.is_error
    assert "room_id and room_kind are required" in missing.content[0].text
