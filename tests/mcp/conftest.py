"""MCP test helpers: a registered bot with a token, and the SDK's own client driven from sync
tests (each call runs its own event loop)."""

from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from memstore.registry import bot_create, project_join
from memstore.tokens import token_create

DIRECT = {"room_id": "dm-42", "room_kind": "direct", "person": "alice"}
GROUP = {"room_id": "team", "room_kind": "group"}


@pytest.fixture
def scout_token(transactional_db, memory_root) -> str:
    bot_create(slug="scout")
    project_join(bot="scout", project="apollo")
    return token_create(bot="scout").token


@asynccontextmanager
async def http_client(url: str, token: str, mode: str = "legacy"):
    """The SDK's Client over Streamable HTTP with a bearer token."""
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        yield client


def run(step: Callable[[], Awaitable]):
    """Run one async step to completion from a sync test."""
    return anyio.run(step)
