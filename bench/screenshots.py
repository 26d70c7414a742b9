"""Screenshots of the console's main pages at desktop and phone widths, from the demo workspace.

    python -m bench screenshots [--out docs/screenshots]

Builds an isolated workspace (its own database and MEMORY_ROOT), runs the demo command's
workspace, serves it on a live server thread, and drives Debian's headless Chromium with
Playwright through the pages a person uses: login, home, a bot's memory, a search, a fact being
edited, the history, the clear confirmation, the prompt preview, a hand-written file and the
learning page, and the workspace search, adding a fact, the review inbox, tokens,
the connect page, workspace health, About me and what can reach a person's prompts. Writes
<width>-<page>.png files (desktop = 1280 px, phone = 390 px).
"""

import argparse
import os
import re
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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench screenshots")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
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
    page.goto(f"{base}/people/demo/prompts/")
    shot("reach")
