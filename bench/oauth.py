"""What an OAuth access token costs at /mcp, against a bot token (the baseline, measured in the
same run): the token check alone, and whole /mcp calls (tools/list, recall) made with each,
interleaved; plus what a refresh at the token endpoint takes.

    python -m bench oauth [--calls 300]

In-process (Django's test client through the whole middleware stack, no sockets), on a
throwaway workspace: one bot with 1,000 facts of its own and 100 in its person's memory, one
connection bound "as alice, in a direct room", the bot token calling the same room.
"""

import base64
import hashlib
import json
import os
import time
from datetime import date, timedelta

from bench._workspace import isolated_workspace, log
from bench.harness import median

ROOM = {"room_id": "mcp-scout-alice", "room_kind": "direct", "person": "alice"}
MCP_HEADERS = {
    "HTTP_ACCEPT": "application/json, text/event-stream",
    "HTTP_MCP_PROTOCOL_VERSION": "2025-06-18",
}
RESOURCE = "http://localhost/mcp"
VERIFIER = "v" * 64


QUICK = {"calls": 10}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--calls", type=int, default=300)


def run(opts):
    with isolated_workspace("memoryconsole_bench_oauth") as root:
        bot_token, client_id, pair = _workspace(root)
        rows = [
            _verify(bot_token, pair.access_token, opts.calls * 5),
            *_calls(bot_token, pair.access_token, opts.calls),
            _refreshes(client_id, pair.refresh_token, opts.calls // 3),
        ]
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) at the end")
    print("| step | bot token p50 ms | OAuth p50 ms | OAuth / bot token |")
    print("| --- | --- | --- | --- |")
    for name, base, oauth in rows:
        ratio = f"{(median(oauth) * 1000) / (median(base) * 1000):.2f}" if base else "—"
        shown = f"{(median(base) * 1000):.2f}" if base else "—"
        print(f"| {name} | {shown} | {(median(oauth) * 1000):.2f} | {ratio} |")


def _workspace(root):
    from django.contrib.auth import get_user_model

    from memstore.models import OAuthClient
    from memstore.registry.bots import bot_create
    from memstore.registry.oauth import Binding, code_exchange, code_issue
    from memstore.registry.oauth_clients import SCOPES, AuthRequest, client_register
    from memstore.registry.people import person_add, person_link
    from memstore.registry.tokens import token_create

    bot_create(slug="scout")
    user = get_user_model().objects.create_user("alice", password="x")
    person_add(name="alice", username="alice")
    person_link(person="alice", bot="scout")
    start = date(2026, 1, 1)
    own = root / "agents/scout/memory/log"
    own.mkdir(parents=True)
    lines = [
        f"- ({start + timedelta(days=i % 300)}) Fact {i} about meetings, budgets and travel {i % 37}"
        for i in range(1000)
    ]
    (own / "2026-01.md").write_text("# Memory log\n\n" + "\n".join(lines) + "\n")
    shard = root / "users/alice/memory/by-agent/scout"
    shard.mkdir(parents=True)
    (shard / "profile.md").write_text(
        "# Profile\n\n" + "".join(f"- (2026-01-02) Alice likes thing {i}\n" for i in range(100))
    )
    client = client_register(metadata={"redirect_uris": ["http://127.0.0.1:1/cb"]})
    assert OAuthClient.objects.count() == 1
    digest = hashlib.sha256(VERIFIER.encode()).digest()
    challenge = base64.urlsafe_b64encode(digest).decode().rstrip("=")
    asked = AuthRequest(client, "http://127.0.0.1:1/cb", "", challenge, tuple(SCOPES), RESOURCE)
    redirect = code_issue(
        request=asked,
        user_id=user.pk,
        bot="scout",
        scopes=tuple(SCOPES),
        binding=Binding(room_id=ROOM["room_id"], room_kind="direct", person="alice"),
    )
    code = redirect.split("code=", 1)[1].split("&", 1)[0]
    pair = code_exchange(
        client_id=client.client_id,
        code=code,
        redirect_uri="http://127.0.0.1:1/cb",
        verifier=VERIFIER,
        resource=RESOURCE,
    )
    log("workspace: 1,000 own facts, 100 user facts, one bound connection")
    return token_create(bot="scout").token, client.client_id, pair


def _verify(bot_token: str, access: str, n: int):
    from memstore.registry.oauth import access_verify
    from memstore.registry.tokens import token_verify

    timings = {"bot": [], "oauth": []}
    for _ in range(n):
        for key, call in (
            ("bot", lambda: token_verify(token=bot_token)),
            ("oauth", lambda: access_verify(token=access, resource=RESOURCE)),
        ):
            started = time.perf_counter()
            assert call() is not None
            timings[key].append(time.perf_counter() - started)
    log("token checks: done")
    return "token check alone", timings["bot"], timings["oauth"]


def _calls(bot_token: str, access: str, calls: int):
    from django.test import Client

    http = Client(HTTP_HOST="localhost")
    cases = [
        ("tools/list", {"method": "tools/list"}, {"method": "tools/list"}),
        (
            "recall (20 facts)",
            _tool("recall", {**ROOM, "query": "meetings budget"}),
            _tool("recall", {"query": "meetings budget"}),
        ),
    ]
    rows = []
    for name, with_room, bound in cases:
        timings = {"bot": [], "oauth": []}

        def call(token, message):
            body = json.dumps({"jsonrpc": "2.0", "id": 1, **message})
            response = http.post(
                "/mcp",
                body,
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {token}",
                **MCP_HEADERS,
            )
            assert response.status_code == 200, response.content
            assert b'"isError":true' not in response.content.replace(b" ", b"")

        for _ in range(5):
            call(bot_token, with_room)
            call(access, bound)
        for _ in range(calls):  # interleaved, so both see the same machine load
            for key, token, message in (("bot", bot_token, with_room), ("oauth", access, bound)):
                started = time.perf_counter()
                call(token, message)
                timings[key].append(time.perf_counter() - started)
        log(f"{name}: done")
        rows.append((f"/mcp {name}", timings["bot"], timings["oauth"]))
    return rows


def _refreshes(client_id: str, refresh: str, n: int):
    from django.test import Client

    http = Client(HTTP_HOST="localhost")
    timings = []
    for _ in range(n):
        started = time.perf_counter()
        response = http.post(
            "/oauth/token",
            {"grant_type": "refresh_token", "refresh_token": refresh, "client_id": client_id},
        )
        timings.append(time.perf_counter() - started)
        assert response.status_code == 200, response.content
        refresh = response.json()["refresh_token"]
    log("refreshes: done")
    return "token endpoint refresh (rotates)", [], timings


def _tool(name: str, arguments: dict) -> dict:
    return {"method": "tools/call", "params": {"name": name, "arguments": arguments}}
