"""`bench api`'s server and its load: gunicorn started as the README runs it in production, its
startup timed, and loopback client threads driving it (one connection each) while the requests
are timed. Does not build the workspace (`bench._api_workspace`) or report (`bench.api`).
"""

import http.client
import random
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from bench._api_workspace import BOTS, PERSONS, PROJECTS, WORDS, members, person, project
from bench._workspace import REPO, log

# --- the server and the load ---------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, workers: int, env: dict) -> subprocess.Popen:
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "memoryconsole.wsgi",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--log-level",
        "warning",
    ]
    log("Starting: " + " ".join(command[2:]))
    server = subprocess.Popen(command, cwd=REPO, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/api/v1/health")
            if conn.getresponse().status == 200:
                return server
        except OSError:
            time.sleep(0.3)
    server.terminate()
    raise SystemExit("gunicorn did not answer /api/v1/health within 60 s")


def startup_measure(port: int, tokens: list[str], master: int, ready_s: float) -> str:
    """The first recall after a start (the model is loaded by then when the server preloads
    it; this bot's vectors are not) and each worker's memory with the model loaded."""
    path, headers = request_for("recall", random.Random(0), tokens, b=0)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    t0 = time.perf_counter()
    conn.request("GET", path, headers=headers)
    status = conn.getresponse()
    status.read()
    first = (time.perf_counter() - t0) * 1000
    conn.close()
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    memory = []
    for pid in children:
        fields = dict(
            line.split(":", 1)
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
        )
        rss, pss = (int(fields[k].split()[0]) / 1024 for k in ("Rss", "Pss"))
        memory.append((rss, pss))
    line = (
        f"Start: health answered {ready_s:.1f} s after launching gunicorn; the first recall then "
        f"took {first:.0f} ms (HTTP {status.status}). Worker memory after it: "
        + ", ".join(f"RSS {r:.0f} MB (PSS {p:.0f} MB)" for r, p in memory)
        + " (PSS splits pages shared with the master and the other workers)."
    )
    log(line)
    return line


@dataclass
class Result:
    requests: int
    errors: int
    seconds: float
    latencies: list[float]

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    def pct(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def request_for(
    endpoint: str, rng: random.Random, tokens: list[str], b: int | None = None
) -> tuple[str, dict]:
    b = rng.randrange(BOTS) if b is None else b
    headers = {
        "Authorization": f"Bearer {tokens[b]}",
        "X-Room-Id": f"dm-{b}",
        "X-Room-Kind": "direct",
        "X-Person": person(b % PERSONS),
        "X-Projects": project(b % PROJECTS) if b in members(b % PROJECTS) else "",
    }
    if endpoint == "health":
        return "/api/v1/health", {}
    if endpoint == "me":
        return "/api/v1/me", headers
    if endpoint == "list":
        return "/api/v1/facts?limit=20", headers
    if endpoint == "prompt":
        return "/api/v1/prompt", headers
    words = [rng.choice(WORDS[k]).replace("-", " ") for k in rng.sample(sorted(WORDS), 2)]
    return "/api/v1/recall?limit=20&query=" + quote(" ".join(words)), headers


def load(
    port: int,
    endpoint: str,
    tokens: list[str],
    clients: int,
    seconds: float,
    seed: int,
    sweep: int = 0,
) -> Result:
    """`clients` threads calling one endpoint for `seconds`; with `sweep`, each bot `sweep` times
    instead (a warm-up: every worker process then has every bot's scopes loaded)."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors = [0] * clients
    start = time.perf_counter()
    deadline = start + seconds

    def client(i: int) -> None:
        rng = random.Random(seed * 100 + i)
        conn = None
        order = [b for _ in range(sweep) for b in range(i, BOTS, clients)]
        while order if sweep else time.perf_counter() < deadline:
            path, headers = request_for(endpoint, rng, tokens, order.pop() if sweep else None)
            began = time.perf_counter()
            try:
                if conn is None:
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                conn.request("GET", path, headers=headers)
                response = conn.getresponse()
                response.read()
                if response.status != 200:
                    errors[i] += 1
                if response.will_close:
                    conn.close()
                    conn = None
            except OSError:
                errors[i] += 1
                conn = None
                continue
            latencies[i].append(time.perf_counter() - began)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    merged = [x for per in latencies for x in per]
    return Result(requests=len(merged), errors=sum(errors), seconds=elapsed, latencies=merged)
