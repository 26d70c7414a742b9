"""GET /api/v1/export: a bot downloads its own memory (and nothing else) as a zip."""

import io
import json
import zipfile

from django.test import Client

from tests.helpers import HEADER


def test_a_bot_exports_its_own_memory_without_hidden_facts(memory_root, bot_a):
    own = memory_root / "agents/a/memory/profile.md"
    own.parent.mkdir(parents=True)
    own.write_text(
        HEADER + "- (2026-01-05) Visible\n- (2026-01-06) Secret plan <!-- visibility=hidden -->\n"
    )
    other = memory_root / "users/alice/memory/by-agent/other/profile.md"
    other.parent.mkdir(parents=True)
    other.write_text("- (2026-01-07) Not the bot's\n")

    response = Client(HTTP_HOST="localhost").get(
        "/api/v1/export", HTTP_AUTHORIZATION=f"Bearer {bot_a.token}"
    )

    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        names = archive.namelist()
        profile = archive.read("agents/a/memory/profile.md").decode()
        facts = [json.loads(x) for x in archive.read("facts.jsonl").decode().splitlines()]
    assert names == ["agents/a/memory/profile.md", "facts.jsonl"]
    assert profile == HEADER + "- (2026-01-05) Visible\n"
    assert [f["text"] for f in facts] == ["Visible"]


def test_export_needs_a_token(db):
    response = Client(HTTP_HOST="localhost").get("/api/v1/export")
    assert response.status_code == 401
    assert response.json()["code"] == "unauthorized"
