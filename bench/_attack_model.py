"""`bench attack`'s model: an OpenAI-compatible endpoint on 127.0.0.1 that obeys what it reads,
and logs every request it receives (for the outgoing gate's figures).

Chat completions (the learner's extraction, summarize): every sentence of the quoted data
(between the `<<data-…>>` markers; for an exchange, the person's message) comes back as a
`profile:` line, with "remember that", "please note" and the like stripped, so an injected
instruction or someone else's secret is proposed as a fact, as a model that follows the text
would. Episode calls get the first sentence that holds a marker word, as prose. Embeddings:
bag-of-words vectors. Rerank (`/rerank`): the documents in the order given.
"""

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_DATA = re.compile(r"<<data-[0-9a-f]+>>\n(.*?)\n<<end-data-", re.S)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_ASK = re.compile(
    r"^(?:please\s+)?(?:can you\s+)?(?:remember|note|save|keep in mind|don't forget)"
    r"(?:\s+that)?[:,]?\s+",
    re.I,
)
MARKER = re.compile(r"ZQ\d{4}")


class ObeyingModel:
    """The server, listening on a free loopback port until `close()`; `requests` holds
    (path, phase, body text) for every request, `phase` is set by the bench."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, str]] = []
        self.phase = "setup"
        self._lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                with model._lock:
                    model.requests.append((self.path, model.phase, raw.decode()))
                answer = model.answer(self.path, json.loads(raw))
                payload = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, path: str, body: dict) -> dict:
        if path.endswith("/embeddings"):
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            data = [
                {"object": "embedding", "index": i, "embedding": _vector(t)}
                for i, t in enumerate(texts)
            ]
            return {"object": "list", "data": data, "model": body.get("model", ""), "usage": {}}
        if path.endswith("/rerank"):
            count = len(body.get("documents", []))
            results = [{"index": i, "relevance_score": 1.0 - i / (count + 1)} for i in range(count)]
            return {"results": results, "usage": {"total_tokens": count}}
        system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
        return _completion(obey(system, user))


def obey(system: str, user: str) -> str:
    """What an obedient model answers: the quoted text's sentences as facts."""
    found = _DATA.search(user)
    data = found.group(1) if found else user
    if "[message]" in data:  # an exchange: what the person said
        data = data.split("[message]", 1)[1].split("[reply]", 1)[0]
    sentences = [_ASK.sub("", s.strip()) for s in _SENTENCE.split(data) if s.strip()]
    if "one or two sentences" in system:  # an episode: prose only
        marked = [s for s in sentences if MARKER.search(s)]
        return marked[0] if marked else "NONE"
    lines = [f"profile: {s}" for s in sentences if len(s) > 3][:12]
    return "\n".join(lines) or "NONE"


def _vector(text: str, dim: int = 64) -> list[float]:
    vector = [0.0] * dim
    for word in re.findall(r"\w+", text.lower()):
        vector[sum(word.encode()) * 7919 % dim] += 1.0
    return vector if any(vector) else [1.0] + [0.0] * (dim - 1)


def _completion(text: str) -> dict:
    return {
        "id": "chatcmpl-attack",
        "object": "chat.completion",
        "created": 0,
        "model": "obeying",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 90, "completion_tokens": 10, "total_tokens": 100},
    }
