"""A scripted Anthropic Messages API on loopback (non-streaming `POST /v1/messages`): each request
takes the next scripted reply's content blocks (a `tool_use` or a `text`), so the Anthropic SDK's
own tool runner can run Claude's memory tool in a test. The requests are kept."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeClaude:
    def __init__(self, *replies: list[dict]) -> None:
        self.script, self.requests = list(replies), []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                content = fake.script.pop(0) if fake.script else [{"type": "text", "text": "OK"}]
                used = content[0]["type"] == "tool_use"
                payload = json.dumps(
                    {
                        "id": "msg_1",
                        "type": "message",
                        "role": "assistant",
                        "model": body["model"],
                        "content": content,
                        "stop_sequence": None,
                        "stop_reason": "tool_use" if used else "end_turn",
                        "usage": {"input_tokens": 10, "output_tokens": 10},
                    }  # fmt: skip
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
