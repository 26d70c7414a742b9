"""Each OAuth endpoint over real HTTP, and what it refuses: metadata, registration, the consent
page (unknown client, unregistered redirect, who may connect what), the token endpoint (bad
PKCE verifier, reused code, expired code, wrong redirect URI), refresh rotation, revocation, and
scopes at /mcp. A refusal says what was wrong; a revoked token is refused on the next call."""

from datetime import timedelta

import httpx2
import pytest
from django.utils import timezone

from memstore.models import OAuthClient, OAuthCode, OAuthToken
from memstore.registry.bots import bot_create
from memstore.registry.people import person_add, person_link
from memstore.rooms.tickets import room_bind
from tests.mcp.oauth_flow import (
    ACCEPT,
    LIST,
    PASSWORD,
    Flow,
    authorize_url,
    code_of,
    consent,
    logged_in,
    pkce,
    register,
    sha,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def people(django_user_model, settings, memory_root):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("ann", password=PASSWORD)
    django_user_model.objects.create_user("boss", password=PASSWORD, is_staff=True)
    bot_create(slug="ava")
    bot_create(slug="ben")
    person_add(name="ann", username="ann")
    person_link(person="ann", bot="ava")


def test_metadata_documents(live_server):
    base = live_server.url
    for path in (
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ):
        prm = httpx2.get(base + path)
        assert prm.status_code == 200
        assert prm.json()["resource"] == base + "/mcp"
        assert prm.json()["authorization_servers"] == [base]
        assert prm.headers["Access-Control-Allow-Origin"] == "*"
    meta = httpx2.get(base + "/.well-known/oauth-authorization-server").json()
    assert meta["issuer"] == base
    assert meta["code_challenge_methods_supported"] == ["S256"]
    assert meta["grant_types_supported"] == ["authorization_code", "refresh_token"]
    for name in ("authorization", "token", "registration", "revocation"):
        assert meta[f"{name}_endpoint"].startswith(base + "/oauth/")
    unauthenticated = httpx2.post(base + "/mcp", json=LIST, headers={"Accept": ACCEPT})
    assert unauthenticated.status_code == 401
    assert (
        f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"'
        in unauthenticated.headers["WWW-Authenticate"]
    )


def test_registration_refuses_bad_redirect_uris(live_server):
    base = live_server.url
    ok = register(base)
    assert ok.status_code == 201
    assert ok.json()["client_id"].startswith("mcc_")
    assert ok.json()["token_endpoint_auth_method"] == "none"
    plain = register(base, redirect_uris=["http://example.com/cb"])
    assert plain.status_code == 400
    assert plain.json()["error"] == "invalid_redirect_uri"
    assert "'http://example.com/cb' must be https" in plain.json()["error_description"]
    assert register(base, redirect_uris=[]).json()["error"] == "invalid_redirect_uri"
    fragment = register(base, redirect_uris=["https://app.example/cb#x"])
    assert "#fragment" in fragment.json()["error_description"]
    assert register(base, grant_types=["password"]).json()["error"] == "invalid_client_metadata"
    broken = httpx2.post(base + "/oauth/register", content=b"{nope")
    assert broken.json()["error"] == "invalid_client_metadata"


def test_registrations_never_used_go_after_a_day(live_server, people):
    flow = Flow(live_server.url)
    flow.tokens()  # this client signed in
    unused = register(live_server.url).json()["client_id"]
    recent = register(live_server.url).json()["client_id"]
    OAuthClient.objects.exclude(client_id=recent).update(
        created_at=timezone.now() - timedelta(hours=25)
    )
    register(live_server.url)
    kept = set(OAuthClient.objects.values_list("client_id", flat=True))
    assert flow.client_id in kept and recent in kept and unused not in kept
    assert len(kept) == 3


def test_consent_refuses_unknown_clients_and_unregistered_redirects(live_server, people):
    base = live_server.url
    flow = Flow(base)
    _, challenge = pkce()
    unknown = flow.person.get(authorize_url(base, "mcc_nobody", challenge))
    assert unknown.status_code == 401
    assert "No MCP client is registered with client_id &#x27;mcc_nobody&#x27;" in unknown.text
    elsewhere = flow.person.get(
        authorize_url(base, flow.client_id, challenge, redirect_uri="https://evil.example/cb")
    )
    assert elsewhere.status_code == 400
    assert "location" not in elsewhere.headers
    assert "is not one this client registered" in elsewhere.text
    # A loopback redirect URI may come back on another port (RFC 8252 §7.3).
    other_port = flow.person.get(
        authorize_url(
            base, flow.client_id, challenge, redirect_uri="http://127.0.0.1:9999/callback"
        )
    )
    assert other_port.status_code == 200
    # Anything else wrong goes back to the client, with the state, once the person has used
    # the client (before that: test_a_client_never_used_is_not_redirected_to).
    flow.tokens()
    plain = flow.person.get(
        authorize_url(base, flow.client_id, challenge, code_challenge_method="plain")
    )
    assert plain.status_code == 302
    assert code_of(plain)["error"] == "invalid_request"
    assert "S256" in code_of(plain)["error_description"]
    assert code_of(plain)["state"] == "st-1"
    scope = flow.person.get(authorize_url(base, flow.client_id, challenge, scope="admin"))
    assert code_of(scope)["error"] == "invalid_scope"
    assert (
        "Unknown scope 'admin'; this server grants memory:read"
        in (code_of(scope)["error_description"])
    )
    generic = flow.person.get(
        authorize_url(base, flow.client_id, challenge, scope="openid offline_access memory:read")
    )
    assert generic.status_code == 200  # generic sign-in scopes are ignored, not refused
    assert 'value="memory:read" checked' in generic.text
    assert 'value="memory:write" checked' not in generic.text
    denied = consent(flow.person, authorize_url(base, flow.client_id, challenge), decision="deny")
    assert code_of(denied)["error"] == "access_denied"
    # Logged out: the login page first, then back here.
    anonymous = httpx2.get(authorize_url(base, flow.client_id, challenge))
    assert anonymous.status_code == 302
    assert anonymous.headers["location"].startswith("/login/?next=/oauth/authorize")


def test_who_may_connect_what(live_server, people):
    base = live_server.url
    flow = Flow(base)
    _, challenge = pkce()
    url = authorize_url(base, flow.client_id, challenge)
    page = flow.person.get(url)
    assert 'value="ava"' in page.text and 'value="ben"' not in page.text  # only linked bots
    assert 'value="any"' not in page.text  # "any room" is for staff
    not_linked = consent(flow.person, url, bot="ben")
    assert not_linked.status_code == 422
    assert "You may not connect &#x27;ben&#x27;" in not_linked.text
    any_room = consent(flow.person, url, bot="ava", bind="any")
    assert "Only staff make connections that may name any room" in any_room.text
    nothing = consent(flow.person, url, bot="ava", scopes=[])
    assert "Choose at least one thing the bot may do" in nothing.text
    bad_room = consent(flow.person, url, bot="ava", room_id="no spaces/here")
    assert "Room id &#x27;no spaces/here&#x27; may hold only" in bad_room.text
    room_bind(room_id="dm-bob", kind="direct", person="bob", bot="ava")
    taken = consent(flow.person, url, bot="ava", room_id="dm-bob")
    assert "Room &#x27;dm-bob&#x27; is a direct room with someone else" in taken.text
    staff = Flow(base, "boss")
    code, verifier = staff.code(bot="ben", bind="any")
    access = staff.exchange(code, verifier).json()["access_token"]
    listed = staff.mcp(access).json()["result"]["tools"]
    remember = next(t for t in listed if t["name"] == "remember")
    assert {"room_id", "room_kind"} <= set(remember["inputSchema"]["required"])


def test_token_endpoint_refusals(live_server, people):
    flow = Flow(live_server.url)

    code, verifier = flow.code(bot="ava")
    wrong = flow.exchange(code, verifier[:-1] + ("A" if verifier[-1] != "A" else "B"))
    assert wrong.status_code == 400
    assert wrong.json() == {
        "error": "invalid_grant",
        "error_description": "The PKCE code_verifier does not match the code_challenge.",
    }
    assert flow.exchange(code, verifier).json()["error"] == "invalid_grant"  # spent by the try

    code, verifier = flow.code(bot="ava")
    redirected = flow.exchange(code, verifier, redirect_uri="http://127.0.0.1:8765/other")
    assert "redirect_uri differs" in redirected.json()["error_description"]

    code, verifier = flow.code(bot="ava")
    OAuthCode.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    expired = flow.exchange(code, verifier)
    assert expired.json()["error_description"] == "The authorization code expired; sign in again."

    code, verifier = flow.code(bot="ava")
    first = flow.exchange(code, verifier)
    assert first.status_code == 200
    assert first.headers["Cache-Control"] == "no-store"
    assert flow.mcp(first.json()["access_token"]).status_code == 200
    reused = flow.exchange(code, verifier)
    assert "already used; the connection it made is revoked" in reused.json()["error_description"]
    assert flow.mcp(first.json()["access_token"]).status_code == 401  # refused on the next call
    assert flow.refresh(first.json()["refresh_token"]).json()["error"] == "invalid_grant"

    assert flow.refresh("mcr_unknown").json()["error"] == "invalid_grant"
    unknown_client = httpx2.post(
        live_server.url + "/oauth/token",
        data={"grant_type": "refresh_token", "refresh_token": "x", "client_id": "mcc_no"},
    )
    assert (unknown_client.status_code, unknown_client.json()["error"]) == (401, "invalid_client")
    password = httpx2.post(
        live_server.url + "/oauth/token", data={"grant_type": "password", "client_id": "x"}
    )
    assert password.json()["error"] == "unsupported_grant_type"


def test_refresh_rotates_and_a_reused_refresh_token_ends_the_connection(live_server, people):
    flow = Flow(live_server.url)
    tokens = flow.tokens()
    assert tokens["expires_in"] == 3600
    assert tokens["scope"] == "memory:read memory:write"
    assert OAuthToken.objects.get(kind="access").digest == sha(tokens["access_token"])

    newer = flow.refresh(tokens["refresh_token"]).json()
    assert newer["refresh_token"] != tokens["refresh_token"]
    assert flow.mcp(newer["access_token"]).status_code == 200
    replayed = flow.refresh(tokens["refresh_token"])  # stolen and replayed: both lose
    assert "already used; the connection is revoked" in replayed.json()["error_description"]
    assert flow.mcp(newer["access_token"]).status_code == 401
    assert flow.refresh(newer["refresh_token"]).json()["error"] == "invalid_grant"

    OAuthToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    fresh = flow.tokens()
    assert flow.mcp(fresh["access_token"]).status_code == 200  # a fresh sign-in works
    # A connection's rows a day past their expiry go when it next gets tokens; another
    # connection's stay until it does.
    second = flow.refresh(fresh["refresh_token"]).json()
    two_days_ago = timezone.now() - timedelta(days=2)
    OAuthToken.objects.filter(digest=sha(fresh["access_token"])).update(expires_at=two_days_ago)
    OAuthToken.objects.filter(digest=sha(tokens["access_token"])).update(expires_at=two_days_ago)
    third = flow.refresh(second["refresh_token"]).json()
    assert not OAuthToken.objects.filter(digest=sha(fresh["access_token"])).exists()
    assert OAuthToken.objects.filter(digest=sha(tokens["access_token"])).exists()
    # A live access token stops at its expiry.
    assert flow.mcp(third["access_token"]).status_code == 200
    OAuthToken.objects.filter(digest=sha(third["access_token"])).update(expires_at=timezone.now())
    assert flow.mcp(third["access_token"]).status_code == 401


def test_revocation(live_server, people):
    flow = Flow(live_server.url)
    revoke = live_server.url + "/oauth/revoke"
    tokens = flow.tokens()
    assert httpx2.post(revoke, data={"token": tokens["access_token"]}).status_code == 200
    assert flow.mcp(tokens["access_token"]).status_code == 401
    again = flow.refresh(tokens["refresh_token"]).json()  # the refresh token still works
    assert flow.mcp(again["access_token"]).status_code == 200
    assert httpx2.post(revoke, data={"token": again["refresh_token"]}).status_code == 200
    assert flow.refresh(again["refresh_token"]).json()["error_description"] == (
        "The refresh token was revoked; sign in again."
    )
    assert flow.mcp(again["access_token"]).status_code == 401  # its connection went with it
    assert httpx2.post(revoke, data={"token": "mcr_never-issued"}).status_code == 200
    assert httpx2.post(revoke, data={}).json()["error"] == "invalid_request"


def test_read_only_connection_may_not_write(live_server, people):
    flow = Flow(live_server.url)
    access = flow.tokens(scopes=["memory:read"])["access_token"]
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
    write = flow.mcp(access, {**call, "params": {"name": "remember", "arguments": {"text": "x"}}})
    assert write.status_code == 403
    assert 'error="insufficient_scope"' in write.headers["WWW-Authenticate"]
    assert "may not call remember" in write.json()["error"]["message"]
    read = flow.mcp(access, {**call, "params": {"name": "recall", "arguments": {"query": "x"}}})
    assert read.status_code == 200
    assert read.json()["result"]["isError"] is False


def test_disconnect_in_the_console(live_server, people):
    flow = Flow(live_server.url)
    access = flow.tokens()["access_token"]
    page = flow.person.get("/connections/")
    assert "Test client" in page.text and "mcp-ava-ann (direct, as ann)" in page.text
    connection_id = page.text.split('name="id" value="')[1].split('"')[0]
    boss = logged_in(live_server.url, "boss")
    csrf = boss.get("/connections/").text.split('name="csrfmiddlewaretoken" value="')[1]
    boss.post("/connections/", data={"id": connection_id, "csrfmiddlewaretoken": csrf[:64]})
    assert "not yours" in boss.get("/connections/").text
    assert flow.mcp(access).status_code == 200  # someone else's connection: untouched
    csrf = page.text.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    ended = flow.person.post(
        "/connections/", data={"id": connection_id, "csrfmiddlewaretoken": csrf}
    )
    assert ended.status_code == 302
    assert flow.mcp(access).status_code == 401
    assert "No connections yet" in flow.person.get("/connections/").text


def test_a_write_only_connection_may_not_read_resources(live_server, people):
    flow = Flow(live_server.url)
    access = flow.tokens(scopes=["memory:write"])["access_token"]
    read = {"jsonrpc": "2.0", "id": 3, "method": "resources/read"}
    note = flow.mcp(access, {**read, "params": {"uri": "memory://about-me"}})
    assert note.status_code == 403
    assert 'error="insufficient_scope"' in note.headers["WWW-Authenticate"]
    assert "may not read resources" in note.json()["error"]["message"]
    reader = flow.tokens(scopes=["memory:read"])["access_token"]
    assert flow.mcp(reader, {**read, "params": {"uri": "memory://about-me"}}).status_code == 200
