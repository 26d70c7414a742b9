"""Real headless Chromium (Debian's /usr/bin/chromium) driven by Playwright against live_server."""

from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def chromium():
    """One browser per test module (skipped, saying why, when Chromium is not installed).

    Module scope, not session: Playwright's sync API keeps an event loop running in this
    thread while it is open, and later tests that call async code synchronously would fail."""
    if not CHROMIUM.exists():
        pytest.skip(
            "Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)"
        )
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop running in this thread, so Django (the test's
    # own queries) would refuse to run here; allowed for as long as the browser is open.
    with pytest.MonkeyPatch.context() as patch, sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


PHONE = {"width": 390, "height": 844}


def signed_in_page(chromium, base_url: str, width: int, path: str, username: str, password: str):
    """A new page at `width` (390 is a phone's 844 px high screen), sent to `path`, signed in on the
    log-in page it lands on, back at `path`; with the console and page errors it collects."""
    import re

    viewport = PHONE if width == 390 else {"width": width, "height": 900}
    context = chromium.new_context(viewport=viewport)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.set_default_timeout(10_000)
    page.set_default_navigation_timeout(30_000)  # a live server's first page, on a busy box
    page.goto(f"{base_url}{path}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(re.escape(path.split("?")[0])))
    return context, page, problems
