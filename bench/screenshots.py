"""Screenshots of the console's main pages at desktop and phone widths, from the demo workspace.

    python -m bench screenshots [--out docs/screenshots]

Builds an isolated workspace (its own database and MEMORY_ROOT), runs the demo command's
workspace, serves it on a live server thread, and drives Debian's headless Chromium with
Playwright through the pages a person uses: login, home, a bot's memory, a search, a fact being
edited, the history, the clear confirmation, the prompt preview, a hand-written file and the
learning page, "Why here?" under a search result, and the workspace search, adding a fact, the
review inbox, tokens, the connect page, workspace health, About me (as a list and grouped by
bot), what can reach a person's prompts, the OAuth consent page an MCP client sends a person to
(a client registered as one would, at /oauth/register) and the Connections page listing it
(allowed once, at desktop width, and its code traded for tokens as the client would). Writes
<width>-<page>.png files (desktop = 1280 px, phone = 390 px).
"""

import base64
import hashlib
import json
import os
import re
import secrets
import urllib.parse
import urllib.request
from pathlib import Path

from bench._workspace import isolated_workspace, log

OUT = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
WIDTHS = {"desktop": (1280, 860), "phone": (390, 844)}
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def arguments(parser) -> None:
    parser.add_argument("--out", type=Path, default=OUT)


def run(args):
    with isolated_workspace("screenshots_console"):
        return capture(args.out)


def capture(out: Path) -> int:
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.test.testcases import LiveServerThread
    from playwright.sync_api import sync_playwright

    from memstore.management.demo import demo_workspace

    demo_workspace(say=log)
    server = LiveServerThread("127.0.0.1", StaticFilesHandler, port=0)
    server.daemon = True
    server.start()
    server.is_ready.wait()
    if server.error:
        raise server.error
    base = f"http://127.0.0.1:{server.port}"
    out.mkdir(parents=True, exist_ok=True)
    # Playwright's sync API runs an event loop in this thread, where Django would then refuse
    # to query; this one-shot process allows it.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
            )
            for name, (width, height) in WIDTHS.items():
                context = browser.new_context(
                    viewport={"width": width, "height": height}, color_scheme="light"
                )
                _pages(context.new_page(), base, out, name)
                context.close()
            browser.close()
    finally:
        server.terminate()
    return 0


def _pages(page, base: str, out: Path, width: str) -> None:
    def shot(name: str, full: bool = True) -> None:
        path = out / f"{width}-{name}.png"
        page.screenshot(path=str(path), full_page=full)
        log(f"  {path.relative_to(out.parent.parent)}")

    page.set_default_timeout(10_000)
    page.goto(f"{base}/login/")
    shot("login", full=False)
    page.get_by_label("Username").fill("demo")
    page.get_by_label("Password").fill("demo-memory")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/")
    shot("home")
    page.goto(f"{base}/bots/ava/")
    shot("bot")
    page.get_by_label("Search").press_sequentially("offsite", delay=30)
    page.wait_for_url("**q=offsite**")
    page.locator("#fact-list .summary", has_text="match").wait_for()
    shot("search")
    page.locator("#fact-list li.fact").first.get_by_role("link", name="Why here?").click()
    why = page.locator("#fact-list li.fact").first.locator("dl.why")
    why.wait_for()
    page.locator("#fact-list li.fact").first.scroll_into_view_if_needed()
    shot("why", full=False)
    page.locator("#fact-list li.fact").first.get_by_role("link", name=re.compile("^Edit")).click()
    page.get_by_label("Fact text").wait_for()
    shot("edit", full=False)
    page.goto(f"{base}/bots/ava/?tab=people")
    shot("people")
    page.goto(f"{base}/bots/ava/history/")
    shot("history")
    page.goto(f"{base}/bots/ava/")
    page.get_by_role("link", name="Clear all").click()
    page.locator(".confirm").wait_for()
    page.locator(".confirm").scroll_into_view_if_needed()
    shot("clear", full=False)
    page.goto(f"{base}/bots/ava/prompt/")
    shot("prompt")
    page.goto(f"{base}/bots/cleo/files/?path=agents/cleo/memory/profile.md")
    shot("file")
    page.goto(f"{base}/bots/ava/learning/")
    shot("learning")
    page.goto(f"{base}/search/?q=budjet")
    shot("workspace-search")
    page.goto(f"{base}/bots/ava/facts/add/")
    shot("add")
    page.goto(f"{base}/bots/ava/review/")
    shot("review")
    page.goto(f"{base}/bots/ava/tokens/")
    shot("tokens")
    page.goto(f"{base}/bots/ava/connect/")
    shot("connect")
    page.goto(f"{base}/health/")
    shot("health")
    page.goto(f"{base}/me/")
    shot("about-me")
    page.goto(f"{base}/me/?group=bot")
    shot("about-me-by-bot")
    _consent(page, base, shot, allow=width == "desktop")
    page.goto(f"{base}/connections/")
    shot("connections")
    page.goto(f"{base}/people/demo/prompts/")
    shot("reach")


CALLBACK = "http://127.0.0.1:8765/callback"  # the client's loopback listener (answered here)


def _post(url: str, body: bytes, kind: str) -> dict:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": kind})
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


def _consent(page, base: str, shot, *, allow: bool) -> None:
    """Register a client as an MCP client would, open its consent page; with `allow`, pick
    ava, Allow, and trade the code for tokens (the connection then shows on Connections)."""
    client = _post(
        f"{base}/oauth/register",
        json.dumps({"client_name": "Claude Desktop", "redirect_uris": [CALLBACK]}).encode(),
        "application/json",
    )
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    params = {
        "response_type": "code",
        "client_id": client["client_id"],
        "redirect_uri": CALLBACK,
        "state": "screenshots",
        "code_challenge": challenge.decode().rstrip("="),
        "code_challenge_method": "S256",
    }
    landed: list[str] = []
    page.route(
        f"{CALLBACK.rsplit('/', 1)[0]}/**",
        lambda route: (landed.append(route.request.url), route.fulfill(body="Signed in."))[1],
    )
    page.goto(f"{base}/oauth/authorize?{urllib.parse.urlencode(params)}")
    page.get_by_role("heading", name=re.compile("^Connect Claude Desktop")).wait_for()
    page.get_by_label("Bot", exact=True).select_option("ava")
    shot("consent")
    if not allow:
        return
    page.get_by_role("button", name="Allow").click()
    page.wait_for_url(re.compile(re.escape(CALLBACK)))
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(landed[0]).query)["code"][0]
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": CALLBACK,
        "client_id": client["client_id"],
        "resource": f"{base}/mcp",
    }
    _post(
        f"{base}/oauth/token",
        urllib.parse.urlencode(form).encode(),
        "application/x-www-form-urlencoded",
    )
