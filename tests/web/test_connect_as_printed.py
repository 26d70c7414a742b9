"""First contact: the connect examples a person copies from the console answer as printed.

The Tokens page fills in a new token (staff see a group-room example unless the bot acts for
them); the Connect page of a bot linked to the viewer shows a direct room with them. Each
snippet is taken from the page, run with curl or Python against a live server, and must save a
fact and find it again: no 403 `person_unknown` / `person_not_linked` on the first try."""

import html
import os
import re
import subprocess
import sys

import pytest
from django.test import Client

from memstore.registry.bots import bot_create
from memstore.registry.people import person_add, person_link
from memstore.registry.tokens import token_create
from tests.helpers import REPO, database_url

pytestmark = pytest.mark.django_db(transaction=True)
BOTH = ["memory:read", "memory:write"]  # the token form's two boxes, ticked as it opens


def _snippet(page: str, kind: str, bot: str) -> str:
    found = re.search(rf'<pre id="{kind}-{bot}"><code>(.*?)</code></pre>', page, re.S)
    assert found, f"no {kind} snippet on the page"
    return html.unescape(found.group(1))


def _client(live_server, django_user_model, username: str, *, staff: bool = False) -> Client:
    user = django_user_model.objects.create_user(username, is_staff=staff)
    client = Client(HTTP_HOST=live_server.url.removeprefix("http://"))
    client.force_login(user)
    return client


def _run_curl(script: str) -> str:
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_tokens_page_examples_run_as_printed(live_server, django_user_model):
    bot_create(slug="scout")
    boss = _client(live_server, django_user_model, "boss", staff=True)
    page = boss.post("/bots/scout/tokens/", {"name": "first", "scopes": BOTH}).content.decode()
    out = _run_curl(_snippet(page, "curl", "scout"))
    assert '"text":"Prefers dark mode"' in out.replace(": ", ":") and "person_" not in out


def test_the_connect_page_examples_run_as_printed_for_a_linked_person(
    live_server, django_user_model
):
    bot_create(slug="scout")
    sam = _client(live_server, django_user_model, "sam")
    person_add(name="sam", username="sam")
    person_link(person="sam", bot="scout")
    token = token_create(bot="scout", name="t").token
    page = sam.get("/bots/scout/connect/").content.decode()
    assert "X-Person: sam" in page and "dm-sam" in page

    curl = _snippet(page, "curl", "scout").replace('TOKEN="mct_…"', f'TOKEN="{token}"')
    out = _run_curl(curl)
    assert out.count("Prefers dark mode") == 2 and "person_" not in out

    python = _snippet(page, "python", "scout").replace('TOKEN = "mct_…"', f'TOKEN = "{token}"')
    done = subprocess.run(
        [sys.executable, "-c", python], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "Prefers dark mode" in done.stdout


def test_the_readme_first_bot_example_runs_as_printed(live_server, memory_root):
    """The README's first API example, with `./dev manage` run as `python manage.py` (what it
    calls) on this test's database and the live server's address for 127.0.0.1:8000."""
    person_add(name="demo", username=None)  # `./dev serve` makes the demo workspace's person
    readme = (REPO / "README.md").read_text().split("## For bots: the API", 1)[1]
    block = readme.split("```bash\n", 1)[1].split("```", 1)[0]
    script = block.replace("./dev manage", f"{sys.executable} manage.py").replace(
        "http://127.0.0.1:8000", live_server.url
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memoryconsole.settings",
        "DATABASE_URL": database_url(),
        "MEMORY_ROOT": str(memory_root),
    }
    done = subprocess.run(
        ["bash", "-ec", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("Prefers window seats") == 2, done.stdout
    assert "person_" not in done.stdout


def test_the_connect_page_mcp_address_is_this_servers_and_both_ways_answer(
    live_server, django_user_model
):
    """The MCP part of the Connect page: the URL it prints is this server's /mcp; a client
    given only that URL is sent to sign in (401 naming this server's OAuth metadata), and the
    token way, run with the page's header, lists the tools."""
    import httpx2

    bot_create(slug="scout")
    boss = _client(live_server, django_user_model, "boss", staff=True)
    page = boss.get("/bots/scout/connect/").content.decode()
    url = html.unescape(re.search(r'<code id="mcp-url-scout">(.*?)</code>', page).group(1))
    assert url == f"{live_server.url}/mcp"
    assert "consent page" in page and "OAuth" in page
    oauth = _snippet(page, "mcp-oauth", "scout")
    assert oauth == f"claude mcp add --transport http memory {live_server.url}/mcp"

    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    accept = {"Accept": "application/json, text/event-stream"}
    unsigned = httpx2.post(url, json=listing, headers=accept)
    assert unsigned.status_code == 401
    assert (
        f'resource_metadata="{live_server.url}/.well-known/oauth-protected-resource/mcp"'
        in unsigned.headers["WWW-Authenticate"]
    )
    metadata = httpx2.get(f"{live_server.url}/.well-known/oauth-protected-resource/mcp").json()
    assert metadata["resource"] == url

    token = token_create(bot="scout", name="t").token
    header = re.search(r'--header "([^"]+)"', _snippet(page, "mcp-token", "scout")).group(1)
    name, _, value = header.replace("mct_…", token).partition(": ")
    signed = httpx2.post(url, json=listing, headers=accept | {name: value})
    assert signed.status_code == 200, signed.text
    assert "recall" in {tool["name"] for tool in signed.json()["result"]["tools"]}
