"""`manage.py demo`: a real workspace to look at, created once, a documented login."""

import io

import pytest
from django.core.management import call_command

from tests.helpers import plain

pytestmark = pytest.mark.django_db


def _files(root) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def test_demo_workspace_is_complete_and_idempotent(client, memory_root):
    out = io.StringIO()
    call_command("demo", stdout=out)
    assert "log in as demo / demo-memory" in out.getvalue()
    files = _files(memory_root)
    kinds = {rel.split("/")[0] for rel in files}
    assert kinds == {"agents", "users", "projects", "rooms", "failures.jsonl"}
    assert len([rel for rel in files if "/log/" in rel]) >= 5
    assert "visibility=hidden" in files["agents/ava/memory/profile.md"]
    hand = files["agents/cleo/memory/profile.md"]
    assert "- (2025-02-30) This line has an impossible date" in hand and "## Notes" in hand

    again = io.StringIO()
    call_command("demo", stdout=again)
    assert "memory already present" in again.getvalue() and "created" not in again.getvalue()
    assert _files(memory_root) == files

    assert (
        client.post("/login/", {"username": "demo", "password": "demo-memory"}).status_code == 302
    )
    home = plain(client.get("/"))
    assert "ava" in home and "secret_refused" in home
    cleo = plain(client.get("/bots/cleo/"))
    assert "On-call rotation changes every Monday" in cleo and "impossible date" not in cleo
