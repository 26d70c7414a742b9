"""The Python client's `memory_tool` against a live server: Claude's memory-tool commands, as
the model sends them, become facts in the bot's files; a refused one raises with the words the
model should read."""

import asyncio

import pytest
from memory_console_client import AsyncClient, Client, InvalidRequestError


def test_memory_tool_commands_land_in_the_files(workspace):
    with Client(workspace.url, workspace.token, "dm-7", "direct", person="alice") as memory:
        assert memory.memory_tool({"command": "view", "path": "/memories"}).splitlines()[1:] == [
            "/memories/bot.md\t(bot scout's own memory)",
            "/memories/user.md\t(about alice)",
        ]
        answer = memory.memory_tool(
            {"command": "create", "path": "/memories/user.md", "file_text": "- Likes rooftop bars"}
        )
        assert answer == "Saved 1 new fact(s) in /memories/user.md (about alice)."
        profile = workspace.memory_root / "users/alice/memory/by-agent/scout/profile.md"
        assert "Likes rooftop bars" in profile.read_text()
        with pytest.raises(InvalidRequestError) as refused:
            memory.memory_tool({"command": "delete", "path": "/memories/user.md"})
        assert refused.value.code == "memory_tool_refused"
        assert "not deleted whole" in refused.value.message
        with pytest.raises(ValueError, match="unknown field"):
            memory.memory_tool({"command": "view", "path": "/memories", "depth": 3})


def test_memory_tool_async(workspace):
    async def run() -> str:
        async with AsyncClient(workspace.url, workspace.token, "team", "group") as memory:
            await memory.memory_tool(
                {
                    "command": "insert",
                    "path": "/memories/bot.md",
                    "insert_line": 0,
                    "insert_text": "Standups are at 9:30",
                }  # fmt: skip
            )
            return await memory.memory_tool({"command": "view", "path": "/memories/bot.md"})

    assert asyncio.run(run()).splitlines()[-1] == "     2\t- Standups are at 9:30"
