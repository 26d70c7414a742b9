"""How the console shows a bot's tokens and how to connect it: the API's address, curl and
Python filled in for this server, and what a revoke says.

A part of the console's presenters (`memoryconsole.web.presenters`), kept apart for its size.
Pure: no queries, no file I/O.
"""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Snippets:
    """How to call the API from a bot: the address, and curl and Python filled in; and how to
    add it to an MCP client, signing in (OAuth) or with the bot's token."""

    api: str
    docs: str
    curl: str
    python: str
    mcp: str = ""  # this server's /mcp
    mcp_oauth: str = ""  # an MCP client's config with only the URL: it signs in by itself
    mcp_token: str = ""  # the same client given the bot's token instead


def connect_snippets(*, base: str, token: str = "", person: str | None = None) -> Snippets:
    """The connect page's snippets for this server (a new token filled in when there is one):
    a direct room with `person` when the bot is linked to them (user memory), otherwise a group
    room (the bot's own memory), so that they answer as printed."""
    api = f"{base}/api/v1"
    shown = token or "mct_…"  # the token from the Tokens page
    if person:
        room, kind, scope = f"dm-{person}", "direct", "user"
        headers = f'-H "X-Room-Id: {room}" -H "X-Room-Kind: direct" -H "X-Person: {person}"'
    else:
        room, kind, scope = "team", "group", "bot"
        headers = f'-H "X-Room-Id: {room}" -H "X-Room-Kind: group"'
    curl = (
        f'TOKEN="{shown}"\n'
        f'curl -s -X POST "{api}/facts" -H "Authorization: Bearer $TOKEN" \\\n'
        f'     -H "Content-Type: application/json" {headers} \\\n'
        f'     -d \'{{"text": "Prefers dark mode", "scope": "{scope}"}}\'\n'
        f'curl -s "{api}/recall?query=dark+mode" -H "Authorization: Bearer $TOKEN" \\\n'
        f"     {headers}"
    )
    python = _python_snippet(api=api, shown=shown, room=room, kind=kind, scope=scope, person=person)
    mcp = f"{base}/mcp"
    return Snippets(
        api=api,
        docs=f"{base}/api/docs",
        curl=curl,
        python=python,
        mcp=mcp,
        mcp_oauth=f"claude mcp add --transport http memory {mcp}",
        mcp_token=(
            f"claude mcp add --transport http memory {mcp} \\\n"
            f'     --header "Authorization: Bearer {shown}"'
        ),
    )


def _python_snippet(
    *, api: str, shown: str, room: str, kind: str, scope: str, person: str | None
) -> str:
    # The connect page's Python example: a `memory()` helper for the room, a remember, a recall.
    person_header = ['            "X-Person": person,'] if person else []
    signature = (
        f'def memory(method, path, body=None, *, room="{room}", kind="{kind}", person="{person}"):'
        if person
        else f'def memory(method, path, body=None, *, room="{room}", kind="{kind}"):'
    )
    return "\n".join(
        [
            "import json",
            "import urllib.request",
            "",
            f'API = "{api}"',
            f'TOKEN = "{shown}"',
            "",
            "",
            signature,
            "    request = urllib.request.Request(",
            "        API + path,",
            "        method=method,",
            "        data=None if body is None else json.dumps(body).encode(),",
            "        headers={",
            '            "Authorization": f"Bearer {TOKEN}",',
            '            "Content-Type": "application/json",',
            '            "X-Room-Id": room,',
            '            "X-Room-Kind": kind,',
            *person_header,
            "        },",
            "    )",
            "    with urllib.request.urlopen(request) as response:",
            '        return json.loads(response.read() or b"null")',
            "",
            "",
            f'memory("POST", "/facts", {{"text": "Prefers dark mode", "scope": "{scope}"}})',
            'print(memory("GET", "/recall?query=dark+mode"))',
        ]
    )


def revoked_message(info) -> str:
    """What the tokens page says after a revoke."""
    name = f" ({info.name})" if info.name else ""
    return f"Revoked {info.prefix}…{name}. Calls with it are refused from now on."
