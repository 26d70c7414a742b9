"""Real headless Chromium (Debian's /usr/bin/chromium) driven by Playwright against live_server."""

import os
from pathlib import Path

import pytest

# The live server runs Django in a thread while Playwright's sync API runs an event loop here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

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

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()
