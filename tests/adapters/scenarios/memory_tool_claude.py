"""Claude's memory tool for the conformance suite: the Anthropic SDK's own tool runner with
`MemoryToolBackend`, its model a scripted Messages API on loopback that sends the memory-tool
calls given (argv: the room as JSON, then the calls as JSON); prints the tool results the runner
sent back, and Claude's last reply."""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from anthropic import Anthropic
from memory_console_claude.memory_tool import MemoryToolBackend
from memory_console_client import Client

room, calls = json.loads(sys.argv[1]), json.loads(sys.argv[2])
script = [[{"type": "tool_use", "id": f"toolu_{n}", "name": "memory", "input": c}] for n, c in
          enumerate(calls)] + [[{"type": "text", "text": "Done."}]]  # fmt: skip
results: list = []


class Messages(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        last = body["messages"][-1]["content"]
        results.extend(b for b in last if isinstance(b, dict) and b.get("type") == "tool_result")
        content = script.pop(0)
        reply = {"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
                 "content": content, "stop_sequence": None,
                 "stop_reason": "tool_use" if content[0]["type"] == "tool_use" else "end_turn",
                 "usage": {"input_tokens": 10, "output_tokens": 10}}  # fmt: skip
        payload = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


server = ThreadingHTTPServer(("127.0.0.1", 0), Messages)
threading.Thread(target=server.serve_forever, daemon=True).start()
memory = Client(
    os.environ["MEMORY_CONSOLE_URL"], os.environ["MEMORY_CONSOLE_TOKEN"], room["room_id"],
    room["room_kind"], room.get("person"), room.get("projects", []),
)  # fmt: skip
claude = Anthropic(base_url=f"http://127.0.0.1:{server.server_address[1]}", api_key="test-key")
final = claude.beta.messages.tool_runner(
    model="claude-scripted",
    max_tokens=1024,
    tools=[MemoryToolBackend(memory)],
    messages=[{"role": "user", "content": "Remember what matters."}],
).until_done()
shown = [{"error": bool(r.get("is_error")), "text": json.dumps(r["content"])} for r in results]
print(json.dumps({"results": shown, "reply": final.content[0].text}))
