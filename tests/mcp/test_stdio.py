"""`manage.py mcp --bot SLUG`: the same tools over stdio, driven by the SDK's client launching the
command as a real subprocess on the test database."""

import os
import sys

from django.db import connections
from mcp import StdioServerParameters

from tests.helpers import MCP_DIRECT, MCP_GROUP, REPO, database_url, run_async


def test_stdio_serves_the_same_tools(scout_token, memory_root):
    connections.close_all()  # the child opens its own connection
    params = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp", "--bot", "scout"],
        cwd=str(REPO),
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "memoryconsole.settings",
            "DATABASE_URL": database_url(),
            "MEMORY_ROOT": str(memory_root),
        },
    )

    async def step():
        from mcp import Client

        async with Client(params, mode="legacy") as client:
            tools = await client.list_tools()
            saved = await client.call_tool(
                "remember", {**MCP_DIRECT, "text": "Works from Lisbon", "scope": "user"}
            )
            refused = await client.call_tool("list_facts", {**MCP_GROUP, "scope": "user"})
            return [t.name for t in tools.tools], saved, refused

    names, saved, refused = run_async(step)
    assert "remember" in names and "report_exchange" in names
    assert saved.structured_content["file"].startswith("users/alice/memory/by-agent/scout/")
    assert "Works from Lisbon" in (memory_root / saved.structured_content["file"]).read_text()
    assert refused.is_error and "forbidden" in refused.content[0].text
