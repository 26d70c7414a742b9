"""The Python client's `changes` (sync and async) against a live server: a bot follows the
change feed of its room with the cursor each answer gives."""

import asyncio

from memory_console_client import AsyncClient, Client


def test_the_sync_and_async_client_follow_the_feed(workspace):
    team = dict(room_id="team", room_kind="group", projects=["apollo"])
    with Client(workspace.url, workspace.token, **team) as memory:
        start = memory.changes()
        memory.remember("Apollo ships on May 4", scope="project", project="apollo")
        memory.forget(text="Apollo ships on May 4")
        feed = memory.changes(start["cursor"], limit=1)
        assert [(e["type"], e["text"], e["scope"]) for e in feed["events"]] == [
            ("add", "Apollo ships on May 4", "project:apollo")
        ]
        assert feed["more"] is True

    async def rest():
        async with AsyncClient(workspace.url, workspace.token, **team) as memory:
            return await memory.changes(feed["cursor"])

    tail = asyncio.run(rest())
    assert [(e["type"], e["text"]) for e in tail["events"]] == [("forget", "Apollo ships on May 4")]
    assert tail["more"] is False
