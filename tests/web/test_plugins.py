"""The plugin bundle on the Connect page: made for this server's address, a folder per coding
agent (Claude Code, Codex, Cursor), signing in by OAuth (no token in any file), and a skill
that names only tools the MCP server has."""

import io
import json
import re
import zipfile

import pytest

from tests.mcp.test_http import TOOLS

pytestmark = pytest.mark.django_db
ROOT = "memory-console-plugins/"


def _bundle(client) -> dict[str, str]:
    response = client.get("/bots/ava/connect/plugins.zip")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(response.content)) as bundle:
        return {name.removeprefix(ROOT): bundle.read(name).decode() for name in bundle.namelist()}


def test_each_client_points_at_this_servers_mcp_endpoint(ann, workspace):
    files = _bundle(ann)
    claude = json.loads(files["claude-code/memory-console/.mcp.json"])
    assert claude["mcpServers"]["memory"] == {"type": "http", "url": "http://testserver/mcp"}
    manifest = json.loads(files["claude-code/memory-console/.claude-plugin/plugin.json"])
    assert manifest["name"] == "memory-console"
    assert 'url = "http://testserver/mcp"' in files["codex/config.toml"]
    cursor = json.loads(files["cursor/.cursor/mcp.json"])
    assert cursor["mcpServers"]["memory"]["url"] == "http://testserver/mcp"
    assert files["cursor/.cursor/rules/team-memory.mdc"].startswith("---\n")
    assert not any("mct_" in text for text in files.values())  # sign in, never a token


def test_the_skill_teaches_recall_first_and_report_after_with_real_tools(ann, workspace):
    skill = _bundle(ann)["claude-code/memory-console/skills/team-memory/SKILL.md"]
    assert skill.startswith("---\nname: team-memory\ndescription: ")
    named = set(re.findall(r"`([a-z_]+)`", skill)) - {"room_id", "room_kind", "person"}
    named -= {"direct", "group", "recalled", "memory"}
    assert named <= set(TOOLS), named - set(TOOLS)
    assert skill.index("`recall`") < skill.index("`report_exchange`")


def test_the_connect_page_links_it(ann, workspace):
    assert "/bots/ava/connect/plugins.zip" in ann.get("/bots/ava/connect/").content.decode()
