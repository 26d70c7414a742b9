"""How the console shows a bot's tokens and how to connect it: the API's address, curl and
Python filled in for this server, and what a revoke says.

A part of the console's presenters (`memoryconsole.web.presenters`), kept apart for its size.
Pure: no queries, no file I/O.
"""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Snippets:
    """How to call the API from a bot: the address, and curl and Python filled in."""

    api: str
    docs: str
    curl: str
    python: str


def connect_snippets(*, base: str, token: str = "") -> Snippets:
    """The connect page's snippets for this server (a new token filled in when there is one)."""
    api = f"{base}/api/v1"
    shown = token or "mct_…"  # the token from the Tokens page
    curl = (
        f'TOKEN="{shown}"\n'
        f'curl -s -X POST "{api}/facts" -H "Authorization: Bearer $TOKEN" \\\n'
        '     -H "Content-Type: application/json" -H "X-Room-Id: dm-1" -H "X-Room-Kind: direct" \\\n'
        '     -H "X-Person: ann" -d \'{"text": "Prefers dark mode", "scope": "user"}\'\n'
        f'curl -s "{api}/recall?query=dark+mode" -H "Authorization: Bearer $TOKEN" \\\n'
        '     -H "X-Room-Id: dm-1" -H "X-Room-Kind: direct" -H "X-Person: ann"'
    )
    python = "\n".join(
        [
            "import json",
            "import urllib.request",
            "",
            f'API = "{api}"',
            f'TOKEN = "{shown}"',
            "",
            "",
            'def memory(method, path, body=None, *, room="dm-1", kind="direct", person="ann"):',
            "    request = urllib.request.Request(",
            "        API + path,",
            "        method=method,",
            "        data=None if body is None else json.dumps(body).encode(),",
            "        headers={",
            '            "Authorization": f"Bearer {TOKEN}",',
            '            "Content-Type": "application/json",',
            '            "X-Room-Id": room,',
            '            "X-Room-Kind": kind,',
            '            "X-Person": person,',
            "        },",
            "    )",
            "    with urllib.request.urlopen(request) as response:",
            '        return json.loads(response.read() or b"null")',
            "",
            "",
            'memory("POST", "/facts", {"text": "Prefers dark mode", "scope": "user"})',
            'print(memory("GET", "/recall?query=dark+mode"))',
        ]
    )
    return Snippets(api=api, docs=f"{base}/api/docs", curl=curl, python=python)


def revoked_message(info) -> str:
    """What the tokens page says after a revoke."""
    name = f" ({info.name})" if info.name else ""
    return f"Revoked {info.prefix}…{name}. Calls with it are refused from now on."
