"""Shared builders for the tests (and the learning bench): memory files written the way a person
or a bot leaves them, the API client that speaks for one bot, the console's page readers, the
learner's contexts, the scripted OpenAI-compatible model server, and what child processes need to
reach the test database. Fixtures live in the conftest files; plain functions and classes here.
"""

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import StringIO
from pathlib import Path
from urllib.parse import quote

import numpy as np
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.utils import timezone

from memstore.facts import markdown
from memstore.facts.paths import all_scopes
from memstore.index import index_sync
from memstore.models import Exchange, LearningEvent
from memstore.recall.vectors import vectors_ensure
from memstore.rooms.access import Context, Room

REPO = Path(__file__).resolve().parent.parent
HEADER = "# Memory\n\n"
TODAY = timezone.localdate()
HX = {"HTTP_HX_REQUEST": "true"}  # what htmx adds to its requests


# --- memory files on disk -------------------------------------------------------------------


def day(days_ago: int) -> date:
    return TODAY - timedelta(days=days_ago)


def shard_dir(kind: str, name: str, bot: str) -> str:
    """The folder of `bot`'s shard in a scope, relative to MEMORY_ROOT."""
    if kind == "bot":
        return f"agents/{name}/memory"
    top = {"user": "users", "project": "projects", "room": "rooms"}[kind]
    return f"{top}/{name}/memory/by-agent/{bot}"


def write_memory(root: Path, rel: str, *lines: str) -> Path:
    """Write a memory file (header plus the given lines) at `rel` under the root."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + "".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def write_facts(root: Path, rel: str, *facts: str, day: str = "2026-11-01") -> Path:
    """Write a memory file holding these fact texts (one dated line each)."""
    return write_memory(root, rel, *(f"- ({day}) {text}" for text in facts))


def profile(root: Path, kind: str, name: str, *lines: str, bot: str = "ada") -> Path:
    """Write a shard's profile.md."""
    return write_memory(root, f"{shard_dir(kind, name, bot)}/profile.md", *lines)


def log(root: Path, kind: str, name: str, month: str, *lines: str, bot: str = "ada") -> Path:
    """Write a shard's log/YYYY-MM.md."""
    return write_memory(root, f"{shard_dir(kind, name, bot)}/log/{month}.md", *lines)


def tree(root: Path) -> dict[str, bytes]:
    """Every file under the memory folder with its bytes (history included; the failure log,
    which records refusals, is not memory)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "failures.jsonl"
    }


def synced(root: Path) -> dict[str, bytes]:
    """Sync the whole folder into the index (so reads record nothing new), then snapshot it."""
    index_sync(scopes=all_scopes(root))
    return tree(root)


def facts_on_disk(root: Path) -> dict[str, list[markdown.FactLine]]:
    """Every fact line of every memory file, by path relative to the root."""
    found = {}
    for path in sorted(root.rglob("*.md")):
        lines = markdown.parse_text(path.read_text())
        found[str(path.relative_to(root))] = [line.fact for line in lines if line.fact]
    return {rel: facts for rel, facts in found.items() if facts}


def texts_on_disk(root: Path) -> dict[str, list[str]]:
    return {rel: [f.text for f in facts] for rel, facts in facts_on_disk(root).items()}


# --- contexts, commands, child processes ----------------------------------------------------


def direct(bot: str = "ada", person: str = "alice", room: str = "dm-alice") -> Context:
    return Context(bot=bot, room=Room(id=room, kind="direct"), person=person)


def group(bot: str = "ada", room: str = "team", person: str | None = None) -> Context:
    return Context(bot=bot, room=Room(id=room, kind="group"), person=person)


def run_command(*args: str) -> str:
    """`manage.py <args>` as a script would call it; what it printed on stdout."""
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def database_url() -> str:
    """A DATABASE_URL for the database this test uses, to hand to a child process."""
    db = connection.settings_dict
    user = quote(db["USER"] or "", safe="")
    password = quote(db["PASSWORD"] or "", safe="")
    port = f":{db['PORT']}" if db["PORT"] else ""
    host = db["HOST"] or ""
    if host.startswith("/"):  # a socket folder
        return f"postgresql://{user}:{password}@{port}/{db['NAME']}?host={quote(host)}"
    return f"postgresql://{user}:{password}@{host}{port}/{db['NAME']}"


def verify_forgotten_child(memory_root: Path, target: str) -> subprocess.CompletedProcess:
    """`manage.py memory verify-forgotten TARGET` run as a separate process on this test's
    database and memory folder (the test needs `django_db(transaction=True)`)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memoryconsole.settings",
        "DATABASE_URL": database_url(),
        "MEMORY_ROOT": str(memory_root),
    }
    return subprocess.run(
        [sys.executable, "manage.py", "memory", "verify-forgotten", target],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def wait_until(condition: Callable[[], object], timeout: float = 120.0) -> None:
    """Poll `condition` until it holds; fail the test if it does not within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"still not true after {timeout} s: {condition}"
        time.sleep(0.02)


def remaining(target: str) -> list[str]:
    """What `manage.py memory verify-forgotten TARGET` lists: one line per place the fact
    still is ("kind  where  (note)"), or [] when it says none remains (exit status 0)."""
    out = StringIO()
    try:
        call_command("memory", "verify-forgotten", target, stdout=out, stderr=StringIO())
    except CommandError as error:
        assert error.returncode == 1, error
        return out.getvalue().splitlines()
    assert out.getvalue().strip() == "No copy remains."
    return []


def remaining_kinds(target: str) -> set[str]:
    """The kinds of store (file, index, embedding, history, exchange, learning, reply) that
    verify-forgotten says still hold the fact."""
    return {line.split()[0] for line in remaining(target)}


def exchange_stored(*, bot: str, message: str, reply: str = "Noted.", person: str = "alice"):
    """A stored exchange (as the learner keeps one) with one learning event quoting the
    message, for erase tests: rows of the learner's own tables, not index rows."""
    n = Exchange.objects.count() + 1
    exchange = Exchange.objects.create(
        bot=bot,
        room_id=f"dm-{person}",
        room_kind="direct",
        person=person,
        message_id=f"m{n}",
        reply_id=f"r{n}",
        message=message,
        reply=reply,
        status=Exchange.DONE,
        plan=[{"op": "save", "line": "log", "text": message, "scope": f"user:{person}"}],
    )
    LearningEvent.objects.create(
        exchange=exchange,
        key="save-0",
        bot=bot,
        room_id=exchange.room_id,
        room_kind="direct",
        person=person,
        kind="saved",
        mode="write",
        text=message,
    )
    return exchange


class StubEmbedder:
    """Every text gets the same unit vector: enough to fill the embedding cache."""

    name = "stub"
    dim = 384

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return np.tile(self.embed_query(""), (len(texts), 1))

    def embed_query(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        vector[0] = 1.0
        return vector


def embed(*texts: str) -> None:
    """Cache an embedding for each fact text (keyed by its identity, as recall does)."""
    vectors_ensure({markdown.fact_identity(t): t for t in texts}, embedder=StubEmbedder())


def meaning_ready(embedder=None) -> int:
    """What the worker does after files change: sync every scope, then make the missing vectors
    (with `embedder`, else the configured model); how many it made."""
    from memstore.facts.paths import memory_root
    from memstore.recall import vectors
    from memstore.recall.backfill import backfill_run

    index_sync(scopes=all_scopes(memory_root()))
    return backfill_run(embedder=embedder or vectors.embedder_current()).embedded


# --- the bots' API --------------------------------------------------------------------------


@dataclass
class Answer:
    """What the API answered."""

    status: int
    body: dict
    headers: dict = field(default_factory=dict)


@dataclass
class BotClient:
    """Calls the API as one bot (its token) from one room (the context headers)."""

    token: str
    room_id: str = "r1"
    room_kind: str = "direct"
    person: str = "alice"
    projects: str = ""

    def call(self, method: str, path: str, body: object = None, **query) -> Answer:
        headers = {
            "HTTP_AUTHORIZATION": f"Bearer {self.token}",
            "HTTP_X_ROOM_ID": self.room_id,
            "HTTP_X_ROOM_KIND": self.room_kind,
            "HTTP_X_PERSON": self.person,
            "HTTP_X_PROJECTS": self.projects,
        }
        headers.update({k: v for k, v in query.items() if k.startswith("HTTP_")})
        params = {k: v for k, v in query.items() if not k.startswith("HTTP_") and v is not None}
        client = Client(HTTP_HOST="localhost")
        url = f"/api/v1{path}"
        if method == "GET":
            response = client.get(url, params, **headers)
        else:
            if params:
                url += "?" + "&".join(f"{k}={v}" for k, v in params.items())
            data = json.dumps(body) if body is not None else ""
            response = client.generic(method, url, data, content_type="application/json", **headers)
        payload = json.loads(response.content) if response.content else {}
        return Answer(response.status_code, payload, dict(response.headers))

    def get(self, path: str, **query) -> Answer:
        return self.call("GET", path, **query)

    def post(self, path: str, body: object, **query) -> Answer:
        return self.call("POST", path, body, **query)

    def patch(self, path: str, body: object, **query) -> Answer:
        return self.call("PATCH", path, body, **query)

    def put(self, path: str, body: object, **query) -> Answer:
        return self.call("PUT", path, body, **query)

    def delete(self, path: str, **query) -> Answer:
        return self.call("DELETE", path, **query)


# --- the console's pages --------------------------------------------------------------------


def texts(response) -> list[str]:
    """The fact texts a console page shows, in order (search marks taken out)."""
    html = response.content.decode()
    return [
        re.sub(r"\s+", " ", re.sub(r"</?mark>", "", t)).strip()
        for t in re.findall(r'<p class="fact-text">(.*?)</p>', html, re.S)
    ]


def marked(response) -> list[str]:
    """The words a console page marks as matching a search, in order."""
    return re.findall(r"<mark>(.*?)</mark>", response.content.decode())


def plain(response) -> str:
    """The response's text without tags, whitespace collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", response.content.decode())).strip()


# --- the scripted model server ----------------------------------------------------------------
# A small OpenAI-compatible chat (and embeddings) endpoint on 127.0.0.1 answering from a script, so tests drive
# the production model client (and the queue's retries) over real HTTP. Each request takes the
# next scripted `Reply`; with the script empty, `responder(request)` (or a plain NONE) answers.
# Replies can be good text, an HTTP status (429, 500, 401…), a malformed body, a slow answer, or
# one that blocks until released (to kill a worker mid-call).


@dataclass(frozen=True)
class Reply:
    text: str = "NONE"
    status: int = 200
    tokens: int = 100
    delay: float = 0.0
    malformed: bool = False
    block: bool = False
    tool_calls: tuple[tuple[str, dict], ...] = ()  # (name, arguments): the model calls tools


def calls_tool(name: str, **arguments) -> Reply:
    """A reply calling one tool (an agent framework runs it and asks the model again)."""
    return Reply(text="", tool_calls=((name, arguments),))


def ok(text: str, tokens: int = 100) -> Reply:
    return Reply(text=text, tokens=tokens)


def status(code: int) -> Reply:
    return Reply(status=code)


class FakeModel:
    """The scripted server, listening on a free loopback port until `close()`."""

    def __init__(self) -> None:
        self.script: deque[Reply] = deque()
        self.responder: Callable[[dict], Reply] | None = None
        self.requests: list[dict] = []
        self.blocked = threading.Event()  # set when a blocking reply is waiting
        self.release = threading.Event()
        self._lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with model._lock:
                    model.requests.append(body)
                    reply = model.script.popleft() if model.script else None
                if reply is None:
                    reply = model.responder(body) if model.responder else Reply()
                if reply.block:
                    model.blocked.set()
                    model.release.wait(30)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.malformed:
                    self._send(200, b'{"choices": [ this is not json')
                elif reply.status != 200:
                    error = {"error": {"message": f"scripted {reply.status}", "type": "test"}}
                    self._send(reply.status, json.dumps(error).encode())
                elif self.path.endswith("/embeddings"):
                    self._send(200, json.dumps(_embeddings(body)).encode())
                else:
                    self._send(200, json.dumps(_completion(body, reply)).encode())

            def _send(self, code: int, payload: bytes) -> None:
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client went away (a killed worker, a timeout)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def push(self, *replies: Reply) -> None:
        with self._lock:
            self.script.extend(replies)

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def learner_on(settings, model: FakeModel, *, mode: str = "write", attempts: int = 3) -> FakeModel:
    """Learning switched on in `mode` against the scripted model, with instant retries and a
    budget no test reaches."""
    settings.LEARNING_BASE_URL = model.url
    settings.LEARNING_MODEL = "scripted"
    settings.LEARNING_API_KEY = "test-key"
    settings.LEARNING_MODE = mode
    settings.LEARNING_DAILY_TOKENS = 1_000_000
    settings.LEARNING_TIMEOUT = 2.0
    settings.LEARNING_RETRY_ATTEMPTS = attempts
    settings.LEARNING_RETRY_WAIT = 0.0
    return model


def worker_run(queues: list[str]) -> None:
    """One in-process procrastinate worker that stops when no job of these queues is ready."""
    from django.db import connections
    from procrastinate.contrib.django import app

    def close_connections(process_task, context, worker):
        # Sync tasks run in worker threads, each with its own Django connection; close it so
        # the test database can be flushed and dropped.
        try:
            return process_task()
        finally:
            connections.close_all()

    with app.replace_connector(app.connector.get_worker_connector()):
        app.run_worker(
            queues=queues,
            wait=False,
            install_signal_handlers=False,
            listen_notify=False,
            task_middleware=[close_connections],
        )


def word_vector(text: str, dim: int = 64) -> list[float]:
    """A bag-of-words vector: texts sharing words are near, deterministic, instant."""
    vector = [0.0] * dim
    for word in re.findall(r"\w+", text.lower()):
        vector[sum(word.encode()) * 7919 % dim] += 1.0
    return vector if any(vector) else [1.0] + [0.0] * (dim - 1)


def _embeddings(request: dict) -> dict:
    texts = request["input"] if isinstance(request["input"], list) else [request["input"]]
    data = [
        {"object": "embedding", "index": i, "embedding": word_vector(t)}
        for i, t in enumerate(texts)
    ]
    usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
    return {"object": "list", "data": data, "model": request.get("model", ""), "usage": usage}


def is_episode(request: dict) -> bool:
    """Whether a request is the episode call (its system prompt asks for sentences)."""
    return "one or two sentences" in request["messages"][0]["content"]


def prompt_of(request: dict) -> str:
    return request["messages"][1]["content"]


def _completion(request: dict, reply: Reply) -> dict:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "test"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.text} | _tool_calls(reply),
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": reply.tokens - 10,
            "completion_tokens": 10,
            "total_tokens": reply.tokens,
        },
    }


def _tool_calls(reply: Reply) -> dict:
    if not reply.tool_calls:
        return {}
    calls = [
        {"id": f"call_{n}", "type": "function",
         "function": {"name": name, "arguments": json.dumps(arguments)}}
        for n, (name, arguments) in enumerate(reply.tool_calls)
    ]  # fmt: skip
    return {"tool_calls": calls, "content": reply.text or None}


def learned(ctx: Context, model: "FakeModel", answer: str, *, message_id: str, **texts):
    """Submit one exchange and run the learner on it, the fake model answering `answer`
    (settings choose report or write mode); the exchange's receipt."""
    from memstore.learning import exchange_submit
    from memstore.learning.pipeline import exchange_learn
    from memstore.llm.config import learner_config, model_client

    model.push(ok(answer))
    receipt = exchange_submit(
        ctx=ctx,
        message=texts.get("message", "I moved to Lisbon last week, and I am vegetarian."),
        reply=texts.get("reply", "Noted."),
        message_id=message_id,
        reply_id=f"r-{message_id}",
    )
    config = learner_config()
    exchange_learn(exchange_id=receipt.id, client=model_client(config), config=config)
    return receipt


# --- a clock for history ----------------------------------------------------------------------


class HistoryClock:
    """Sets the time history entries are stamped with (memstore.facts.history reads
    `datetime.now`), so a test can script saves, edits and forgets on chosen days."""

    def __init__(self, monkeypatch, start: datetime) -> None:
        from memstore.facts import history

        clock = self

        class Frozen(datetime):
            @classmethod
            def now(cls, tz=None):
                return clock.now if tz is None else clock.now.astimezone(tz)

        self.now = start
        monkeypatch.setattr(history, "datetime", Frozen)

    def at(self, when: datetime) -> "HistoryClock":
        self.now = when
        return self


# --- MCP clients ---------------------------------------------------------------------------

MCP_DIRECT = {"room_id": "dm-42", "room_kind": "direct", "person": "alice"}
MCP_GROUP = {"room_id": "team", "room_kind": "group"}


@asynccontextmanager
async def mcp_http_client(url: str, token: str, mode: str = "legacy"):
    """The official MCP SDK's Client over Streamable HTTP with a bearer token."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        yield client


def run_async(step: Callable[[], Awaitable]):
    """Run one async step to completion from a sync test."""
    import anyio

    return anyio.run(step)
