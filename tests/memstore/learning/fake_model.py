"""A small OpenAI-compatible chat endpoint on 127.0.0.1 answering from a script, so tests drive
the production model client (and the queue's retries) over real HTTP.

Each request takes the next scripted `Reply`; with the script empty, `responder(request)` (or a
plain NONE) answers. Replies can be good text, an HTTP status (429, 500, 401…), a malformed body,
a slow answer, or one that blocks until released (to kill a worker mid-call).
"""

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Reply:
    text: str = "NONE"
    status: int = 200
    tokens: int = 100
    delay: float = 0.0
    malformed: bool = False
    block: bool = False


def ok(text: str, tokens: int = 100) -> Reply:
    return Reply(text=text, tokens=tokens)


def status(code: int) -> Reply:
    return Reply(status=code)


class FakeModel:
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
                "message": {"role": "assistant", "content": reply.text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": reply.tokens - 10,
            "completion_tokens": 10,
            "total_tokens": reply.tokens,
        },
    }
