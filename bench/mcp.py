"""What MCP costs on top of the JSON API: the same calls through POST /mcp and through /api/v1.

    python -m bench mcp [--calls 200] [--facts 1000]

In-process (Django's test client through the whole middleware stack, no sockets), on a
throwaway workspace: one bot with `--facts` facts of its own and 100 in its person's memory.
Each call is timed alone; the table gives medians and p95 in ms, API next to MCP, and the
difference (what the SDK, the ASGI bridge and the thread hop add). MCP requests are stateless
JSON-mode calls (one POST each), as a client sends them after its handshake.
"""

import json
import time
from datetime import date, timedelta

from bench._workspace import isolated_workspace, log
from bench.harness import median, p95

ROOM = {"room_id": "dm-1", "room_kind": "direct", "person": "alice"}
HEADERS = {"HTTP_X_ROOM_ID": "dm-1", "HTTP_X_ROOM_KIND": "direct", "HTTP_X_PERSON": "alice"}
MCP_HEADERS = {
    "HTTP_ACCEPT": "application/json, text/event-stream",
    "HTTP_MCP_PROTOCOL_VERSION": "2025-06-18",
}


QUICK = {"calls": 10, "facts": 100}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--facts", type=int, default=1000)


def run(opts):
    with isolated_workspace("memoryconsole_bench_mcp") as root:
        token = _workspace(root, opts.facts)
        rows = [_compare(name, api, tool, token, opts.calls) for name, api, tool in _CASES]
    print(
        f"| call | API p50 | MCP p50 | MCP − API | API p95 | MCP p95 |  ({opts.calls} calls each)"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for name, api, mcp in rows:
        print(
            f"| {name} | {(median(api) * 1000):.1f} | {(median(mcp) * 1000):.1f} | "
            f"{(median(mcp) * 1000) - (median(api) * 1000):+.1f} | {p95([s * 1000 for s in api]):.1f} | "
            f"{p95([s * 1000 for s in mcp]):.1f} |"
        )


def _workspace(root, facts: int) -> str:
    from memstore.registry.bots import bot_create
    from memstore.registry.tokens import token_create

    bot_create(slug="scout")
    start = date(2026, 1, 1)
    own = root / "agents/scout/memory/log"
    own.mkdir(parents=True)
    lines = [
        f"- ({start + timedelta(days=i % 300)}) Fact {i} about meetings, budgets and travel {i % 37}"
        for i in range(facts)
    ]
    (own / "2026-01.md").write_text("# Memory log\n\n" + "\n".join(lines) + "\n")
    user = root / "users/alice/memory/by-agent/scout"
    user.mkdir(parents=True)
    (user / "profile.md").write_text(
        "# Profile\n\n" + "".join(f"- (2026-01-02) Alice likes thing {i}\n" for i in range(100))
    )
    log(f"workspace: {facts} own facts, 100 user facts")
    return token_create(bot="scout").token


_CASES = [
    (
        "recall",
        ("GET", "/api/v1/recall", {"query": "meetings budget"}),
        ("recall", {"query": "meetings budget"}),
    ),
    ("list", ("GET", "/api/v1/facts", {"limit": 50}), ("list_facts", {"limit": 50})),
    ("prompt", ("GET", "/api/v1/prompt", {}), ("prompt_section", {})),
]


def _compare(name, api, tool, token: str, calls: int) -> tuple[str, list[float], list[float]]:
    from django.test import Client

    client = Client(HTTP_HOST="localhost")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    method, path, params = api
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool[0], "arguments": {**ROOM, **tool[1]}},
        }
    )

    def api_call():
        response = client.get(path, params, **auth, **HEADERS)
        assert response.status_code == 200, response.content

    def mcp_call():
        response = client.post("/mcp", body, content_type="application/json", **auth, **MCP_HEADERS)
        assert response.status_code == 200 and b'"isError":false' in response.content.replace(
            b" ", b""
        ), response.content

    timings = {"api": [], "mcp": []}
    for _ in range(5):  # warm both paths
        api_call()
        mcp_call()
    for _ in range(calls):  # interleaved, so both see the same machine load
        for key, call in (("api", api_call), ("mcp", mcp_call)):
            started = time.perf_counter()
            call()
            timings[key].append(time.perf_counter() - started)
    log(f"{name}: done")
    return name, timings["api"], timings["mcp"]
