"""The MCP server the Claude adapter hands a session (`memory.mcp_servers()`), reached with the
MCP SDK as Claude would reach it: its url and headers, then the tools with the room the
UserPromptSubmit hook names; argv: the room as JSON. Prints the tools and one remember's answer."""

import asyncio
import json
import os
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from memory_console_claude import MemoryConsole, room_settings

room = json.loads(sys.argv[1])
memory = MemoryConsole(
    os.environ["MEMORY_CONSOLE_URL"],
    os.environ["MEMORY_CONSOLE_TOKEN"],
    room_settings(room["room_id"], kind=room["room_kind"], person=room.get("person")),
)
server = memory.mcp_servers()["memory"]
where = {"room_id": room["room_id"], "room_kind": room["room_kind"], "person": room["person"]}


async def main() -> dict:
    async with (
        httpx2.AsyncClient(headers=server["headers"]) as http,
        Client(streamable_http_client(server["url"], http_client=http), mode="legacy") as claude,
    ):
        tools = sorted(t.name for t in (await claude.list_tools()).tools)
        saved = await claude.call_tool(
            "remember", {**where, "text": "Takes the 8:15 train", "scope": "user"}
        )
        return {"tools": tools, "error": saved.is_error}


print(json.dumps(asyncio.run(main())))
