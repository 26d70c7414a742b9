"""/mcp at the HTTP edge: only POST (no stream to hold a sync worker), a token first, JSON-RPC
errors for everything refused."""

import json

from django.test import Client

ACCEPT = "application/json, text/event-stream"
LIST = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})


def post(body: str, token: str | None = None, **headers):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return Client(HTTP_HOST="localhost").post(
        "/mcp", data=body, content_type="application/json", HTTP_ACCEPT=ACCEPT, **auth, **headers
    )


def test_get_and_delete_are_refused_at_once(scout_token):
    client = Client(HTTP_HOST="localhost")
    for method in (client.get, client.delete):
        response = method("/mcp", HTTP_AUTHORIZATION=f"Bearer {scout_token}", HTTP_ACCEPT=ACCEPT)
        assert (response.status_code, response["Allow"]) == (405, "POST")
        assert response.json()["error"]["code"] == -32600


def test_no_token_is_a_json_rpc_error_for_that_request(scout_token):
    response = post(LIST)
    assert response.status_code == 401
    # The MCP authorization spec: where to find how to sign in (RFC 9728), and what to ask for.
    assert response["WWW-Authenticate"] == (
        'Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp", '
        'scope="memory:read memory:write"'
    )
    assert response.json()["id"] == 7
    assert response.json()["error"]["code"] == -32001
    wrong = post(LIST, "mct_" + "x" * 43)
    assert wrong.status_code == 401
    assert wrong["WWW-Authenticate"].startswith('Bearer error="invalid_token", resource_metadata=')


def test_malformed_and_oversized_bodies(scout_token, settings):
    broken = post("{not json", scout_token)
    assert (broken.status_code, broken.json()["error"]["code"]) == (400, -32700)
    settings.API_MAX_BODY_BYTES = 100
    big = post(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "x" * 200}), scout_token)
    assert big.status_code == 413
