"""What the API and the console answer when something around them fails (issue 28): a full or
read-only memory volume (a small tmpfs, mounted as root; skipped elsewhere), dates outside the
sane range, malformed tickets (over MCP too), and a retried exchange report after it was
learned from. The database itself going away is tests/deploy/test_faults.py."""

import subprocess

import httpx2
import pytest
from django.test import Client
from mcp import Client as McpClient
from mcp.client.streamable_http import streamable_http_client

from memstore.models import Exchange
from tests.helpers import MCP_DIRECT, run_async

EXCHANGE = {
    "message": "Can we move the standup to 9:30 from next week?",
    "reply": "Done: standup is at 9:30 from Monday.",
    "message_id": "m-1",
    "reply_id": "m-2",
}


def health() -> dict:
    response = Client(HTTP_HOST="localhost").get("/api/v1/health")
    return {"status_code": response.status_code, **response.json()}


def test_a_full_volume_answers_507_and_reads_keep_working(small_volume, bot_a):
    assert bot_a.post("/facts", {"text": "Saved while there was room"}).status == 201
    free = int(health()["memory_volume"]["free_bytes"])
    (small_volume / "ballast.bin").write_bytes(b"\0" * (free - 200 * 1024))
    refused = bot_a.post("/facts", {"text": "Refused for want of room"})
    assert (refused.status, refused.body["code"]) == (507, "memory_volume_full")
    assert "nothing was written" in refused.body["message"]
    listed = bot_a.get("/facts")
    assert listed.status == 200
    assert [f["text"] for f in listed.body["items"]] == ["Saved while there was room"]
    assert list(small_volume.rglob("*.tmp")) == []
    now = health()
    assert (now["status_code"], now["status"], now["problems"]) == (
        200,
        "degraded",
        ["memory_volume_full"],
    )
    assert now["memory_volume"]["state"] == "full" and now["database"]["state"] == "ok"


def test_a_read_only_volume_answers_503_with_its_code(small_volume, bot_a):
    assert bot_a.post("/facts", {"text": "Saved before the remount"}).status == 201
    subprocess.run(["mount", "-o", "remount,ro", small_volume], check=True)
    try:
        refused = bot_a.post("/facts", {"text": "Refused by the volume"})
        assert (refused.status, refused.body["code"]) == (503, "memory_volume_read_only")
        assert refused.headers["Retry-After"] == "2"
        assert bot_a.get("/prompt").body["memory"] == "ok"
        assert health()["problems"] == ["memory_volume_read_only"]
    finally:
        subprocess.run(["mount", "-o", "remount,rw", small_volume], check=True)


@pytest.mark.parametrize("day", ["0001-01-01", "1899-12-31", "9999-12-31"])
@pytest.mark.parametrize("path", ["/prompt", "/facts"])
def test_days_asked_about_outside_the_sane_range_are_refused(bot_a, day, path):
    refused = bot_a.get(path, as_of=day)
    assert (refused.status, refused.body["code"]) == (422, "invalid_request")
    assert "the day asked about must be between 1900-01-01 and" in refused.body["message"]


def test_a_ticket_that_is_not_ascii_is_ticket_invalid(bot_a, settings, live_server, tokens):
    settings.ROOM_TICKET_KEY = "k" * 32
    answer = bot_a.get("/facts", HTTP_X_ROOM_TICKET="v1.².…")
    assert (answer.status, answer.body["code"]) == (401, "ticket_invalid")

    async def over_mcp():
        headers = {"Authorization": f"Bearer {tokens['a']}", "X-Room-Ticket": "v1.².…".encode()}
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            McpClient(streamable_http_client(live_server.url + "/mcp", http_client=http)) as c,
        ):
            return await c.call_tool("recall", {**MCP_DIRECT, "query": "tea"})

    refused = run_async(over_mcp)
    assert refused.is_error and "tool recall: ticket_invalid: " in refused.content[0].text


@pytest.mark.parametrize("status", ["done", "failed", "queued", "skipped"])
def test_a_retried_exchange_gets_its_stored_receipt_whatever_its_status(bot_a, status):
    first = bot_a.post("/exchanges", EXCHANGE)
    assert first.status == 202
    Exchange.objects.filter(pk=int(first.body["id"])).update(status=status)  # as the learner does
    again = bot_a.post("/exchanges", EXCHANGE)
    assert again.status == 200, again.body
    assert again.body == {**first.body, "status": status, "repeated": True}
