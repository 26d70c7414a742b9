"""A per-deployment plugin bundle for coding agents (Claude Code, Codex, Cursor): this server's
MCP address (signing in with OAuth, no token in any file) and a short skill text that teaches
an agent to recall before it answers, remember what it is asked to keep, and report each
exchange after its reply. `plugin_bundle` gives the zip's bytes; the Connect page serves it.

Does not: hold a token (the clients sign in through the console's consent page) or decide
what a bot may do (its OAuth connection does).
"""

import io
import json
import zipfile

SKILL = """---
name: team-memory
description: Use the team's long-term memory ({server}) in every conversation: recall before answering, remember what the user asks to keep, report each exchange after replying.
---

# Team memory

The `memory` MCP server is this team's long-term memory: short dated facts about people,
projects and the bots themselves, kept by Memory Console at {server}.

1. **Before answering**, call `prompt_section` once per conversation (it is the memory a
   prompt should start with), and `recall` with the user's question whenever the answer may
   depend on something said before: a preference, a decision, a date, a name.
2. **When the user says "remember …"** (or states a lasting preference or decision), call
   `remember` with one short fact in the user's words. Never store passwords, keys, tokens or
   anything the user asks to keep private; the server refuses secrets anyway.
3. **After replying**, call `report_exchange` with the user's message and your reply, and in
   `recalled` the ids of the facts your reply used. The server learns from it in the
   background; report only replies that were delivered.
4. A fact that is wrong or outdated: `edit_fact` or `forget` it, never keep both.

Every tool takes the room you are in: `room_id` (the conversation), `room_kind` (`direct` with
one person, `group` otherwise) and, in a direct room, `person`. A connection signed in "as me"
is bound to its room and needs none of them.
"""


def _files(server: str, bot: str) -> dict[str, str]:
    mcp = f"{server}/mcp"
    skill = SKILL.replace("{server}", server)
    readme = f"""# Memory Console for coding agents ({server})

Each folder connects one client to this server's MCP endpoint, {mcp}. The first call opens
the console's consent page in a browser: log in, pick the bot ({bot} or another you may use)
and what it may do, and Allow. No token is written to any file.

- **Claude Code**: `claude plugin install ./claude-code/memory-console` (or copy the folder
  into a plugin marketplace): the MCP server and the team-memory skill. Then `/mcp` → memory →
  Authenticate.
- **Codex**: add `codex/config.toml` to `~/.codex/config.toml`, then `codex mcp login memory`;
  put `codex/AGENTS.md` beside your project's (or in `~/.codex/AGENTS.md`).
- **Cursor**: copy `cursor/.cursor/` into your project (`mcp.json` and the always-applied
  rule); Cursor shows the server as needing login.
"""
    return {
        "README.md": readme,
        "claude-code/memory-console/.claude-plugin/plugin.json": json.dumps(
            {
                "name": "memory-console",
                "version": "1.0.0",
                "description": f"Team memory from Memory Console at {server}",
            },
            indent=2,
        ),
        "claude-code/memory-console/.mcp.json": json.dumps(
            {"mcpServers": {"memory": {"type": "http", "url": mcp}}}, indent=2
        ),
        "claude-code/memory-console/skills/team-memory/SKILL.md": skill,
        "codex/config.toml": f'[mcp_servers.memory]\nurl = "{mcp}"\n',
        "codex/AGENTS.md": skill.split("---\n", 2)[2],
        "cursor/.cursor/mcp.json": json.dumps({"mcpServers": {"memory": {"url": mcp}}}, indent=2),
        "cursor/.cursor/rules/team-memory.mdc": (
            "---\ndescription: Team memory (Memory Console)\nalwaysApply: true\n---\n"
            + skill.split("---\n", 2)[2]
        ),
    }


def plugin_bundle(*, server: str, bot: str) -> bytes:
    """The zip of every client's folder for this server (its base URL, no trailing slash)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, text in _files(server.rstrip("/"), bot).items():
            bundle.writestr(f"memory-console-plugins/{name}", text)
    return buffer.getvalue()
