"""The body-size guard over real HTTP: chunked bodies (no Content-Length) are measured too.

Django's test client can't send a chunked body, so these tests talk to real servers: gunicorn as
production runs it (it de-chunks the body for the app), and Django's own live server, which
can't de-chunk and must say so instead of handing over an empty body.
"""

import http.client
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from memstore.registry.bots import bot_create
from memstore.registry.tokens import token_create
from tests.helpers import database_url, wait_until

REPO = Path(__file__).resolve().parents[2]
LIMIT = 1024
pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def gunicorn(transactional_db, memory_root):
    """gunicorn serving the app on the test database, API_MAX_BODY_BYTES=1024."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "MEMORY_ROOT": str(memory_root),
        "API_MAX_BODY_BYTES": str(LIMIT),
    }
    command = [sys.executable, "-m", "gunicorn", "memoryconsole.wsgi", "--workers", "1"]
    server = subprocess.Popen(
        [*command, "--bind", f"127.0.0.1:{port}", "--log-level", "warning"], cwd=REPO, env=env
    )
    try:
        wait_until(lambda: send(port, "GET", "/api/v1/health")[0] == 200, timeout=60)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


def send(port: int, method: str, path: str, chunks=None, headers=None) -> tuple[int, dict]:
    """One request; `chunks` (a list of bytes) goes as a chunked body. (0, {}) if no answer."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        body = iter(chunks) if chunks is not None else None
        conn.request(method, path, body=body, headers=headers or {}, encode_chunked=True)
        response = conn.getresponse()
        raw = response.read()
    except OSError:
        return 0, {}
    finally:
        conn.close()
    return response.status, json.loads(raw) if raw else {}


def room(token: str) -> dict:
    return {
        "Authorization": f"Bearer {token}",
        "Content-Type": "application/json",
        "X-Room-Id": "r1",
        "X-Room-Kind": "bot",
    }


def in_chunks(data: bytes, size: int = 100) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def test_a_chunked_body_over_the_limit_is_refused(gunicorn, memory_root):
    bot_create(slug="scout")
    token = token_create(bot="scout").token
    body = json.dumps({"text": "y" * 400, "src": "x" * 900}).encode()
    assert len(body) > LIMIT
    status, answer = send(gunicorn, "POST", "/api/v1/facts", in_chunks(body), room(token))
    assert (status, answer) == (
        413,
        {
            "code": "body_too_large",
            "message": "The request body is over 1 KiB; this API refuses larger bodies.",
            "detail": {"limit_bytes": LIMIT},
        },
    )
    assert list(memory_root.rglob("*.md")) == []


def test_a_chunked_body_under_the_limit_is_read_whole(gunicorn, memory_root):
    bot_create(slug="scout")
    token = token_create(bot="scout").token
    text = "Launch moved to " + "very " * 90 + "late March"
    body = json.dumps({"text": text, "src": "room:42/msg:" + "9" * 180}).encode()
    assert 600 < len(body) < LIMIT
    status, answer = send(gunicorn, "POST", "/api/v1/facts", in_chunks(body, 64), room(token))
    assert status == 201, answer
    assert (answer["text"], answer["meta"]["src"]) == (text, "room:42/msg:" + "9" * 180)
    assert answer["text"] in (memory_root / answer["file"]).read_text()


def test_a_server_that_cannot_dechunk_asks_for_a_length(live_server, transactional_db):
    # Django's runserver reads a body by its Content-Length only: a chunked body would look
    # empty, so the guard refuses it rather than validate nothing.
    bot_create(slug="scout")
    token = token_create(bot="scout").token
    port = urlsplit(live_server.url).port
    body = in_chunks(json.dumps({"text": "Prefers tea"}).encode())
    status, answer = send(port, "POST", "/api/v1/facts", body, room(token))
    assert (status, answer["code"]) == (411, "length_required")
    assert "Content-Length" in answer["message"]
