"""Slow clients must not stall the default server: gunicorn started exactly as `./dev serve`
starts it (the command is `memoryconsole.launcher`'s, which `./dev serve` runs), connections that trickle their headers
or their body (four; then 32 slow-header ones, issue 28), and meanwhile ordinary requests
still answer quickly. The figures are printed."""

import http.client
import os
import socket
import statistics
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from gunicorn.ctl.client import ControlClient

from memoryconsole.config import home_dir
from memoryconsole.launcher import gunicorn_command

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def dev_serve_command(port: int) -> list[str]:
    """The gunicorn command line of `memory-console serve` (and so `./dev serve`), on another
    port."""
    return gunicorn_command(f"127.0.0.1:{port}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(port: int, path: str = "/login/", timeout: float = 10) -> float:
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        assert response.status == 200
    finally:
        conn.close()
    return time.perf_counter() - start


def trickle(port: int, opening: bytes, stop: threading.Event) -> None:
    """A slow client: sends `opening`, then one more byte every 0.2 s until told to stop."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(opening)
        while not stop.wait(0.2):
            try:
                sock.sendall(b"x")
            except OSError:
                return


@contextmanager
def running(port: int, env: dict[str, str]) -> Iterator[subprocess.Popen]:
    """gunicorn as `./dev serve` starts it, on `port`, until the block ends (its master)."""
    proc = subprocess.Popen(
        dev_serve_command(port),
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                get(port, timeout=5)
                break
            except (OSError, http.client.HTTPException):
                assert proc.poll() is None, proc.stderr.read()
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.2)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def server():
    port = free_port()
    with running(port, {**os.environ, "DEBUG": "0"}):
        yield port


def ordinary_timings(port: int, openings: list[bytes], samples: int = 20) -> list[float]:
    """Seconds each of `samples` ordinary requests took while slow clients send `openings`
    (a request that waits 10 s counts as 10 s)."""
    for _ in range(6):  # every worker has loaded the page once
        get(port)
    stop = threading.Event()
    clients = [
        threading.Thread(target=trickle, args=(port, opening, stop), daemon=True)
        for opening in openings
    ]
    for client in clients:
        client.start()
    try:
        time.sleep(1.5)  # the slow clients are now each in the middle of a request
        timings = []
        for _ in range(samples):
            try:
                timings.append(get(port, timeout=10))
            except (OSError, http.client.HTTPException):
                timings.append(10.0)
    finally:
        stop.set()
        for client in clients:
            client.join(5)
    return timings


SLOW_HEADER = b"GET /login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
SLOW_BODY = (
    b"POST /login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n"
)


def test_slow_clients_do_not_stall_ordinary_requests(server):
    timings = ordinary_timings(server, [SLOW_HEADER, SLOW_HEADER, SLOW_BODY, SLOW_BODY])
    median_ms, worst_ms = statistics.median(timings) * 1000, max(timings) * 1000
    print(
        f"\nwith 2 slow-header and 2 slow-body clients: 20 ordinary requests, "
        f"median {median_ms:.0f} ms, worst {worst_ms:.0f} ms"
    )
    assert worst_ms < 2000


def test_32_slow_header_clients_do_not_stall_ordinary_requests(server):
    # Issue 28: with 8 threads per worker, 16 slow clients stalled everything; each slow
    # client holds one thread, and one worker may accept most of them (gunicorn.conf.py).
    timings = ordinary_timings(server, [SLOW_HEADER] * 32)
    median_ms, worst_ms = statistics.median(timings) * 1000, max(timings) * 1000
    print(
        f"\nwith 32 slow-header clients: 20 ordinary requests, "
        f"median {median_ms:.0f} ms, worst {worst_ms:.0f} ms"
    )
    assert worst_ms < 2000


def test_two_servers_of_one_user_each_have_their_own_control_socket(tmp_path):
    # gunicorn's control socket (gunicornc) defaulted to one path per user, ~/.gunicorn/gunicorn.ctl:
    # the second server took it over from the first, and the first to stop removed it.
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "DEBUG": "0", "HOME": str(home)}
    env.pop("XDG_RUNTIME_DIR", None)
    ports = free_port(), free_port()
    with running(ports[0], env) as first, running(ports[1], env) as second:
        assert not (home / ".gunicorn").exists()
        for master, port in ((first, ports[0]), (second, ports[1])):
            path = home_dir(REPO) / "run" / f"gunicorn-{master.pid}.ctl"
            with ControlClient(str(path), timeout=10) as control:
                listeners = control.send_command("show listeners")["listeners"]
            assert [entry["address"] for entry in listeners] == [f"http://127.0.0.1:{port}"]
    # Each server removes its own socket when it stops.
    for master in (first, second):
        assert not (home_dir(REPO) / "run" / f"gunicorn-{master.pid}.ctl").exists()
