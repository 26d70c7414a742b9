"""deploy/server.json, the MCP registry entry, says what this server is: the package version,
a Streamable HTTP remote at the path /mcp is served on, and a variable for every placeholder."""

import json
import re
import tomllib

from django.urls import reverse

from memoryconsole.mcp.tools import TOOL_SCOPES, server
from memstore.registry.oauth_clients import SCOPES
from tests.helpers import REPO, run_async


def test_registry_entry_matches_the_server():
    entry = json.loads((REPO / "deploy/server.json").read_text())
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert entry["version"] == version
    assert re.fullmatch(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+", entry["name"])
    assert len(entry["description"]) <= 100  # the registry's limit
    (remote,) = entry["remotes"]
    assert remote["type"] == "streamable-http"
    assert remote["url"].endswith(reverse("mcp"))
    assert set(re.findall(r"\{(\w+)\}", remote["url"])) == set(remote["variables"])


def test_every_tool_has_a_title_and_a_scope():
    tools = run_async(server.list_tools)
    assert {t.name: bool(t.title) for t in tools} == {name: True for name in TOOL_SCOPES}
    assert set(TOOL_SCOPES.values()) == set(SCOPES)
    read_only = {t.name for t in tools if t.annotations.read_only_hint}
    assert read_only == {n for n, s in TOOL_SCOPES.items() if s == "memory:read"}
