"""`bench attack`'s doors: each sends one attempt's carrier and payload into the live server the
way its door is used, and returns what the door answered (the status and the error code, or what
the answer says became of it). Attempts alternate between alice's direct room and the group
room `team` (alice speaking), both of which write into the bot's team-wide memory or hers.
"""

import http.cookiejar
import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from urllib.parse import urlencode

from bench._attack_payloads import Attempt

BOT = "scout"
DIRECT = {"room_id": "dm-alice", "room_kind": "direct", "person": "alice"}
GROUP = {"room_id": "team", "room_kind": "group", "person": "alice"}


def room_of(attempt: Attempt) -> dict:
    return DIRECT if attempt.room == "direct" else GROUP


@dataclass
class Api:
    """The bots' API over HTTP for one bot token."""

    base: str
    token: str

    def call(self, method: str, path: str, room: dict, body=None, **query) -> tuple[int, dict]:
        url = f"{self.base}{path}" + (f"?{urlencode(query)}" if query else "")
        headers = {
            "Authorization": f"Bearer {self.token}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-06-18",
        }
        names = {"room_id": "X-Room-Id", "room_kind": "X-Room-Kind", "person": "X-Person"}
        headers.update({names[k]: v for k, v in room.items() if v})
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                return answer.status, json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as error:
            raw = error.read()
            try:
                return error.code, json.loads(raw or b"{}")
            except ValueError:
                return error.code, {"code": raw[:80].decode(errors="replace")}


def _said(status: int, body: dict) -> str:
    return f"{status} {body.get('code', '')}".strip()


def door_api(api: Api, attempt: Attempt) -> str:
    """POST /api/v1/facts: the payload as the fact's text (default scope: the bot's own)."""
    return _said(*api.call("POST", "/api/v1/facts", room_of(attempt), {"text": attempt.payload}))


def door_mcp(api: Api, attempt: Attempt) -> str:
    """The MCP `remember` tool, one stateless JSON-RPC POST to /mcp."""
    arguments = {"text": attempt.payload, **room_of(attempt)}
    message = {
        "jsonrpc": "2.0",
        "id": attempt.n,
        "method": "tools/call",
        "params": {"name": "remember", "arguments": arguments},
    }
    status, body = api.call("POST", "/mcp", {"room_id": "", "room_kind": ""}, message)
    result = body.get("result", {})
    if not result.get("isError"):
        return f"{status} ok" if result else f"{status} {body.get('error', '')}"
    text = result["content"][0]["text"]
    code = re.search(r"\b(forbidden|[a-z]+_[a-z_]+)\b", text)
    return f"{status} {code.group(1) if code else text[:60]}"


def door_remember(api: Api, attempt: Attempt) -> str:
    """POST /api/v1/exchanges: "remember that <payload>" in the person's message."""
    body = {
        "message": f"{attempt.carrier} Remember that {attempt.payload}",
        "reply": "Noted.",
        "message_id": f"m-{attempt.n}",
        "reply_id": f"r-{attempt.n}",
    }
    status, answer = api.call("POST", "/api/v1/exchanges", room_of(attempt), body)
    kept = [f"{r.get('status')}:{r.get('reason') or ''}" for r in answer.get("remembered", [])]
    return f"{status} {answer.get('status', answer.get('code', ''))} {','.join(kept)}".strip()


def door_learner(api: Api, attempt: Attempt) -> str:
    """POST /api/v1/exchanges: the payload inside an ordinary message, for the learner."""
    body = {
        "message": f"{attempt.carrier} {attempt.payload}",
        "reply": "Thanks, good to know.",
        "message_id": f"m-{attempt.n}",
        "reply_id": f"r-{attempt.n}",
    }
    status, answer = api.call("POST", "/api/v1/exchanges", room_of(attempt), body)
    return f"{status} {answer.get('status', answer.get('code', ''))} {answer.get('reason') or ''}"


def door_summarize(api: Api, attempt: Attempt) -> str:
    """POST /api/v1/facts/summarize: a short document holding the payload."""
    text = f"Meeting notes.\n{attempt.carrier}\n{attempt.payload}\n"
    status, answer = api.call("POST", "/api/v1/facts/summarize", room_of(attempt), {"text": text})
    if status != 200:
        return _said(status, answer)
    reasons = sorted({r.get("reason", "") for r in answer.get("refused", [])})
    return f"200 saved {len(answer.get('saved', []))} refused {','.join(reasons) or '-'}"


def doors_import(attempts: list[Attempt], folder: Path, env: dict) -> None:
    """`manage.py import mem0` of one export holding every import attempt, as the bot's own."""
    folder.mkdir(parents=True, exist_ok=True)
    export = folder / "mem0.json"
    memories = [
        {"id": f"mem-{a.n}", "memory": a.payload, "agent_id": BOT, "created_at": "2026-01-02"}
        for a in attempts
    ]
    export.write_text(json.dumps({"memories": memories}))
    done = subprocess.run(
        [sys.executable, "manage.py", "import", "mem0", str(export), "--bot", BOT],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    said = [s for s in (done.stdout + done.stderr).splitlines() if s.strip() and "[#" not in s]
    summary = f"exit {done.returncode}: " + " | ".join(said[-3:])[:160]
    for attempt in attempts:
        attempt.answer = summary


class Console:
    """A logged-in staff session on the console, over HTTP with a cookie jar."""

    def __init__(self, base: str, username: str, password: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        token = self._token("/login/")
        form = {"username": username, "password": password, "csrfmiddlewaretoken": token}
        status, _ = self._post("/login/", form)
        if status >= 400:
            raise RuntimeError(f"console login failed: {status}")

    def _token(self, path: str) -> str:
        with self.opener.open(self.base + path, timeout=60) as page:
            html = page.read().decode()
        return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)

    def _post(self, path: str, form: dict) -> tuple[int, str]:
        data = urlencode(form).encode()
        request = urllib.request.Request(self.base + path, data=data, method="POST")
        request.add_header("Referer", self.base + path)
        try:
            with self.opener.open(request, timeout=60) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def add(self, attempt: Attempt) -> str:
        path = f"/bots/{BOT}/facts/add/"
        form = {
            "text": attempt.payload,
            "scope": f"bot:{BOT}",
            "tier": "log",
            "csrfmiddlewaretoken": self._token(path),
        }
        status, html = self._post(path, form)
        if status == 200 and "fact-text" in html and attempt.marker in html:
            return "200 saved"
        error = re.search(r'class="[^"]*error[^"]*"[^>]*>\s*([^<]{0,80})', html)
        return f"{status} {error.group(1).strip() if error else ''}".strip()


def doors_hand(attempts: list[Attempt], root: Path) -> None:
    """Lines written by hand into the bot's own memory file (team-wide), as a person edits."""
    log = root / f"agents/{BOT}/memory/log/{date.today():%Y-%m}.md"
    log.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"- ({date.today()}) {a.payload}" for a in attempts]
    existing = log.read_text() if log.exists() else "# Memory log\n\n"
    log.write_text(existing + "".join(line + "\n" for line in lines))
    for attempt in attempts:
        attempt.answer = "written"
