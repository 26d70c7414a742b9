"""API test helpers: registered bots with tokens, a client that speaks for one bot in one room,
and Markdown fixtures written straight to MEMORY_ROOT (the files are the truth)."""

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.test import Client

from memstore.index import index_sync
from memstore.paths import all_scopes
from memstore.registry import bot_create, project_join
from memstore.tokens import token_create

HEADER = "# Memory\n\n"


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

    def delete(self, path: str, **query) -> Answer:
        return self.call("DELETE", path, **query)


@pytest.fixture
def tokens(db) -> dict[str, str]:
    """Bots `a` and `b`, both in project apollo (neither in zeus), with one token each."""
    result = {}
    for slug in ("a", "b"):
        bot_create(slug=slug, display_name=slug.upper())
        project_join(bot=slug, project="apollo")
        result[slug] = token_create(bot=slug, name="tests").token
    return result


@pytest.fixture
def bot_a(tokens) -> BotClient:
    return BotClient(token=tokens["a"])


def write_facts(root: Path, rel: str, *facts: str, day: str = "2026-11-01") -> Path:
    """Write a memory file holding these fact texts (one dated line each)."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + "".join(f"- ({day}) {text}\n" for text in facts), encoding="utf-8")
    return path


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
