"""What the typed clients cost on top of plain HTTP: the same calls through httpx2 alone (one
pooled connection), the Python `Client` kept open, a `Client` made for each call (what a bot
that doesn't keep one pays), and the standard-library client to paste (docs/api.md section 9,
a new connection per call).

    python -m bench clients [--calls 300] [--facts 1000] [--write]

A throwaway workspace (one bot, `--facts` facts of its own and 100 in its person's memory)
served over loopback by Django's threaded HTTP/1.1 server in this process. Each call is timed
alone, the three ways interleaved so they see the same machine load; the table gives medians
and p95 in ms and the ratio to plain httpx2 (one pooled connection, the same headers) measured
in the same run.
"""

import os
import re
import sys
import threading
import time
from datetime import date, timedelta

from bench._workspace import REPO, isolated_workspace, log
from bench.harness import median, p95

ROOM = {"X-Room-Id": "dm-1", "X-Room-Kind": "direct", "X-Person": "alice"}


QUICK = {"calls": 10, "facts": 100}  # --quick: small sizes, to see that it still runs


def arguments(parser) -> None:
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--facts", type=int, default=1000)


def run(opts):
    sys.path.insert(0, str(REPO / "clients" / "python" / "src"))
    load_before = os.getloadavg()[0]
    with isolated_workspace("memoryconsole_bench_clients") as root:
        token = _workspace(root, opts.facts)
        url, stop = _serve()
        try:
            rows = [_compare(name, url, token, opts.calls) for name in ("recall", "prompt")]
        finally:
            stop()
    load_after = os.getloadavg()[0]
    table = [
        f"Command: `python -m bench clients --calls {opts.calls} --facts {opts.facts}`. "
        f"{opts.calls} calls each way, interleaved; medians and p95 in ms; load average "
        f"{load_before:.1f} before, {load_after:.1f} after (a 2-core machine shared with other "
        f"work). Python {sys.version.split()[0]}.",
        "",
        "| call | httpx2 p50 | `Client` p50 | a `Client` per call p50 | paste client p50 | "
        "`Client` / httpx2 | per call / httpx2 | paste / httpx2 | httpx2 p95 | "
        "`Client` p95 | paste p95 |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, times in rows:
        p50 = {k: median(v) * 1000 for k, v in times.items()}
        p95 = {k: p95([s * 1000 for s in v]) for k, v in times.items()}
        table.append(
            f"| {name} | {p50['raw']:.2f} | {p50['client']:.2f} | {p50['fresh']:.2f} | "
            f"{p50['paste']:.2f} | {p50['client'] / p50['raw']:.2f}x | "
            f"{p50['fresh'] / p50['raw']:.2f}x | {p50['paste'] / p50['raw']:.2f}x | "
            f"{p95['raw']:.2f} | {p95['client']:.2f} | {p95['paste']:.2f} |"
        )
    print("\n".join(table))


def _workspace(root, facts: int) -> str:
    from memstore.registry.bots import bot_create
    from memstore.registry.people import person_add, person_link
    from memstore.registry.tokens import token_create

    bot_create(slug="scout")
    person_add(name="alice")
    person_link(person="alice", bot="scout")
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


def _serve():
    """The app on a free loopback port (Django's threaded HTTP/1.1 server, keep-alive on)."""
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
    from django.core.wsgi import get_wsgi_application

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args) -> None:
            pass

    server = ThreadedWSGIServer(("127.0.0.1", 0), Quiet, allow_reuse_address=True)
    server.set_app(get_wsgi_application())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def stop() -> None:
        server.shutdown()
        server.server_close()

    return f"http://127.0.0.1:{server.server_address[1]}", stop


def _paste_client():
    """The standard-library client of docs/api.md section 9, as printed."""
    guide = (REPO / "docs" / "api.md").read_text().split("## 9.", 1)[1]
    code = re.search(r"```python\n(.*?)```", guide, re.S).group(1)
    names: dict = {}
    exec(compile(code, "docs/api.md", "exec"), names)  # noqa: S102 - our own documentation
    return names["Memory"]


def _compare(name: str, url: str, token: str, calls: int) -> tuple[str, dict[str, list[float]]]:
    import httpx2
    from memory_console_client import Client

    raw = httpx2.Client(
        base_url=url, headers={"Authorization": f"Bearer {token}", **ROOM}, timeout=30
    )
    typed = Client(url, token, "dm-1", "direct", person="alice", timeout=30)
    paste = _paste_client()(url, token, room_id="dm-1", room_kind="direct", person="alice")

    def fresh(call):  # a `Client` made for the one call (its connection pool and TLS context)
        with Client(url, token, "dm-1", "direct", person="alice", timeout=30) as once:
            return call(once)

    ways = {
        "recall": {
            "raw": lambda: raw.get("/api/v1/recall", params={"query": "meetings budget"}).json(),
            "fresh": lambda: fresh(lambda once: once.recall("meetings budget")),
            "client": lambda: typed.recall("meetings budget"),
            "paste": lambda: paste.recall("meetings budget"),
        },
        "prompt": {
            "raw": lambda: raw.get("/api/v1/prompt").json(),
            "fresh": lambda: fresh(lambda once: once.prompt()),
            "client": lambda: typed.prompt(),
            "paste": lambda: paste.prompt(),
        },
    }[name]
    first = {key: call() for key, call in ways.items()}
    assert first["raw"]["items" if name == "recall" else "text"], first["raw"]
    for _ in range(10):  # warm every path
        for call in ways.values():
            call()
    times: dict[str, list[float]] = {key: [] for key in ways}
    for _ in range(calls):
        for key, call in ways.items():
            started = time.perf_counter()
            call()
            times[key].append(time.perf_counter() - started)
    raw.close()
    typed.close()
    log(f"{name}: done")
    return name, times
