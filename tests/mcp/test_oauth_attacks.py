"""The ways OAuth was bent, each tried again over real HTTP and refused: a consent claiming a
room that is not the person's, the consent page sending a person to a client they never used,
a redirect URI a browser reads differently from a naive parser, floods of registrations, token
and revocation requests, a connection outliving its person's account or link, and room tickets
locking out "as me" connections."""

import json

import httpx2
import pytest
from django.contrib.auth import get_user_model

from memstore.models import OAuthClient, RoomBinding
from memstore.registry.bots import bot_create
from memstore.registry.people import person_add, person_link
from memstore.registry.tokens import token_create
from memstore.rooms.tickets import room_bind, room_ticket
from tests.mcp.oauth_flow import (
    ACCEPT,
    PASSWORD,
    REDIRECT,
    TIMEOUT,
    Flow,
    authorize_url,
    code_of,
    consent,
    console_post,
    logged_in,
    pkce,
    register,
    tool_call,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def people(django_user_model, settings, memory_root):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("ann", password=PASSWORD)
    django_user_model.objects.create_user("boss", password=PASSWORD, is_staff=True)
    bot_create(slug="ava")
    for name in ("ann", "bob"):
        person_add(name=name, username=name if name == "ann" else None)
        person_link(person=name, bot="ava")


def _bot_call(base: str, token: str, room_id: str, kind: str, **extra) -> dict:
    arguments = {"query": "anything", "room_id": room_id, "room_kind": kind, **extra}
    response = httpx2.post(
        base + "/mcp",
        content=json.dumps(tool_call("recall", arguments)),
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Accept": ACCEPT,
        },
        timeout=TIMEOUT,
    )
    assert response.status_code == 200, response.text
    return response.json()["result"]


def test_consent_binds_only_a_room_the_person_is_in_or_a_new_private_one(live_server, people):
    base = live_server.url
    flow = Flow(base)
    _, challenge = pkce()
    url = authorize_url(base, flow.client_id, challenge)
    # A group channel nobody has used yet, and bob's direct room before bob's first message:
    # refused, and left unbound, so the bot's real calls there still work.
    for room in ("team-general", "dm-bob"):
        refused = consent(flow.person, url, bot="ava", room_id=room)
        assert refused.status_code == 422
        assert f"Room &#x27;{room}&#x27; is not one you are in" in refused.text
    assert not RoomBinding.objects.exists()
    bot_token = token_create(bot="ava").token
    assert _bot_call(base, bot_token, "team-general", "group")["isError"] is False
    assert _bot_call(base, bot_token, "dm-bob", "direct", person="bob")["isError"] is False
    # Now bound as the platform uses them: still refused.
    assert "is a group room" in consent(flow.person, url, bot="ava", room_id="team-general").text
    taken = consent(flow.person, url, bot="ava", room_id="dm-bob")
    assert "is a direct room with someone else" in taken.text
    # A direct room ann is already in is allowed, and so is a new private room of hers, bound
    # to her as she allows it (before the client's first call).
    room_bind(room_id="dm-ann", kind="direct", person="ann", bot="ava")
    assert "dm-ann" in flow.person.get(url).text  # offered on the page
    assert code_of(consent(flow.person, url, bot="ava", room_id="dm-ann"))["code"]
    assert code_of(consent(flow.person, url, bot="ava", room_id=""))["code"]
    assert code_of(consent(flow.person, url, bot="ava", room_id="mcp-ava-ann:work"))["code"]
    mine = RoomBinding.objects.filter(person="ann").values_list("room_id", "kind")
    assert sorted(mine) == [
        ("dm-ann", "direct"),
        ("mcp-ava-ann", "direct"),
        ("mcp-ava-ann:work", "direct"),
    ]


def test_a_client_never_used_is_not_redirected_to(live_server, people):
    base = live_server.url
    evil = register(base, client_name="Helpful", redirect_uris=["https://evil.example/cb"])
    client_id = evil.json()["client_id"]
    person = logged_in(base, "ann")
    _, challenge = pkce()
    for bad in ({"scope": "admin"}, {"code_challenge_method": "plain"}, {"response_type": "x"}):
        url = authorize_url(
            base, client_id, challenge, redirect_uri="https://evil.example/cb", **bad
        )
        shown = person.get(url)
        assert shown.status_code == 400
        assert "location" not in shown.headers
        assert "You have never connected the client that sent you here" in shown.text
        assert "Return to evil.example anyway" in shown.text
        assert 'href="https://evil.example/cb?error=' in shown.text  # only if she follows it
    # A client she has used before gets its errors back as OAuth says.
    flow = Flow(base)
    flow.tokens()
    again = flow.person.get(authorize_url(base, flow.client_id, challenge, scope="admin"))
    assert again.status_code == 302
    assert code_of(again)["error"] == "invalid_scope"
    # The consent page itself says when a client is new to her.
    fresh = person.get(
        authorize_url(base, client_id, challenge, redirect_uri=evil.json()["redirect_uris"][0])
    )
    assert "You have not connected this client before" in fresh.text


def test_redirect_uris_are_read_as_a_browser_reads_them(live_server, people):
    base = live_server.url
    for uri, read_as in (
        ("http://evil.example\\@127.0.0.1:8765/cb", "http://evil.example/@127.0.0.1:8765/cb"),
        ("http:\\\\evil.example\\cb", "http://evil.example/cb"),
        ("http://ev\til.example/cb", "http://evil.example/cb"),
    ):
        refused = register(base, redirect_uris=[uri])
        assert refused.status_code == 400
        assert refused.json()["error"] == "invalid_redirect_uri"
        assert f"a browser reads it as {read_as!r}" in refused.json()["error_description"]
    userinfo = register(base, redirect_uris=["http://127.0.0.1@evil.example/cb"])
    assert "user name or password" in userinfo.json()["error_description"]
    # A loopback client registered with IPv4 shorthand is stored, and sent back to, as the
    # address a browser opens; a backslash trick at authorization matches nothing registered.
    short = register(base, redirect_uris=["http://127.1:8765/callback"]).json()
    assert short["redirect_uris"] == [REDIRECT]
    flow = Flow(base)
    _, challenge = pkce()
    bent = flow.person.get(
        authorize_url(
            base,
            flow.client_id,
            challenge,
            redirect_uri="http://evil.example\\@127.0.0.1:8765/callback",
        )
    )
    assert bent.status_code == 400 and "location" not in bent.headers
    assert "is not one this client registered" in bent.text
    code, verifier = flow.code(bot="ava")
    tokens = flow.exchange(code, verifier, redirect_uri="http://0x7f.1:8765/callback")
    assert tokens.status_code == 200  # the same address, however the client spells it


def test_open_endpoints_are_rate_limited_per_address(live_server, people, settings):
    base = live_server.url
    # Hour-long windows: fixed windows start on the clock, and a minute's could end between two
    # requests of a slow run (the windows themselves are tested with a controlled clock).
    settings.OAUTH_RATE_LIMITS = {"register": (3, 3600), "token": (2, 3600), "revoke": (2, 3600)}
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    assert [register(base).status_code for _ in range(3)] == [201, 201, 201]
    flooded = register(base)
    assert flooded.status_code == 429
    assert flooded.json()["error"] == "too_many_requests"
    assert "at most 3 in 3600 seconds" in flooded.json()["error_description"]
    assert 0 < int(flooded.headers["Retry-After"]) <= 3600
    assert OAuthClient.objects.count() == 3  # the refused one stored nothing
    elsewhere = httpx2.post(
        base + "/oauth/register",
        json={"redirect_uris": [REDIRECT]},
        headers={"X-Forwarded-For": "10.0.0.9"},
        timeout=TIMEOUT,
    )
    assert elsewhere.status_code == 201  # another address has its own count
    for endpoint in ("token", "revoke"):
        answers = [
            httpx2.post(
                base + f"/oauth/{endpoint}", data={"token": "x", "grant_type": "x"}, timeout=TIMEOUT
            )
            for _ in range(3)
        ]
        assert [a.status_code for a in answers][2] == 429
        assert 0 < int(answers[2].headers["Retry-After"]) <= 3600


def test_a_registration_keeps_little(live_server, people):
    junk = {f"field_{i}": "x" * 1900 for i in range(30)}
    answer = register(live_server.url, client_name="Big", logo_uri="y" * 1000, **junk)
    assert answer.status_code == 201
    row = OAuthClient.objects.get(client_id=answer.json()["client_id"])
    assert row.metadata == {"client_name": "Big"}


def test_deactivating_the_account_ends_its_connections(live_server, people):
    flow = Flow(live_server.url)
    first = flow.tokens()
    second = flow.refresh(first["refresh_token"]).json()
    assert flow.mcp(second["access_token"]).status_code == 200
    get_user_model().objects.filter(username="ann").update(is_active=False)
    assert flow.mcp(second["access_token"]).status_code == 401
    refused = flow.refresh(second["refresh_token"])
    assert refused.json()["error"] == "invalid_grant"
    get_user_model().objects.filter(username="ann").update(is_active=True)
    # Ended for good: reactivating the account does not bring the connection back.
    assert flow.mcp(second["access_token"]).status_code == 401
    assert flow.refresh(second["refresh_token"]).json()["error"] == "invalid_grant"


def test_deactivation_seen_first_at_refresh_ends_the_connection(live_server, people):
    flow = Flow(live_server.url)
    tokens = flow.tokens()
    get_user_model().objects.filter(username="ann").update(is_active=False)
    refused = flow.refresh(tokens["refresh_token"])
    assert "was deactivated" in refused.json()["error_description"]
    get_user_model().objects.filter(username="ann").update(is_active=True)
    assert flow.mcp(tokens["access_token"]).status_code == 401


def test_a_connection_naming_any_room_ends_with_its_makers_staff_status(live_server, people):
    staff = Flow(live_server.url, "boss")
    code, verifier = staff.code(bot="ava", bind="any")
    tokens = staff.exchange(code, verifier).json()
    assert staff.mcp(tokens["access_token"]).status_code == 200
    get_user_model().objects.filter(username="boss").update(is_staff=False)
    assert staff.mcp(tokens["access_token"]).status_code == 401
    assert staff.refresh(tokens["refresh_token"]).json()["error"] == "invalid_grant"


def test_unlinking_the_person_ends_their_connections(live_server, people):
    base = live_server.url
    flow = Flow(base)
    tokens = flow.tokens()
    assert flow.mcp(tokens["access_token"]).status_code == 200
    boss = logged_in(base, "boss")
    done = console_post(boss, "/people/", {"action": "unlink", "person": "ann", "bot": "ava"})
    assert done.status_code == 302
    assert flow.mcp(tokens["access_token"]).status_code == 401
    assert flow.refresh(tokens["refresh_token"]).json()["error"] == "invalid_grant"
    assert "No connections yet" in flow.person.get("/connections/").text
    # Linked again, the old connection stays ended: she signs in again.
    console_post(boss, "/people/", {"action": "link", "person": "ann", "bot": "ava"})
    assert flow.mcp(tokens["access_token"]).status_code == 401


def test_as_me_connections_work_with_room_tickets(live_server, people, settings):
    settings.ROOM_TICKET_KEY = "platform-key"
    base = live_server.url
    flow = Flow(base)
    access = flow.tokens()["access_token"]
    saved = flow.mcp(access, tool_call("remember", {"text": "Prefers tea", "scope": "user"}))
    assert saved.json()["result"]["isError"] is False, saved.text
    found = flow.mcp(access, tool_call("recall", {"query": "tea"}))
    items = found.json()["result"]["structuredContent"]["items"]
    assert [item["text"] for item in items] == ["Prefers tea"]
    # A staff connection that names its rooms is a bot token's twin: the platform's ticket.
    staff = Flow(base, "boss")
    code, verifier = staff.code(bot="ava", bind="any")
    any_room = staff.exchange(code, verifier).json()["access_token"]
    call = tool_call("recall", {"query": "tea", "room_id": "team", "room_kind": "group"})
    unsigned = staff.mcp(any_room, call).json()["result"]
    assert unsigned["isError"] is True
    assert "ticket_missing: " in unsigned["content"][0]["text"]
    ticket = room_ticket(key="platform-key", bot="ava", room_id="team", kind="group")
    signed = httpx2.post(
        base + "/mcp",
        content=json.dumps(call),
        headers={
            "Authorization": f"Bearer {any_room}",
            "Content-Type": "application/json",
            "Accept": ACCEPT,
            "X-Room-Ticket": ticket,
        },
        timeout=TIMEOUT,
    )
    assert signed.json()["result"]["isError"] is False
