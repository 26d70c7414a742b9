"""The console searching the way the API does, in a real browser at desktop and phone widths
(issue 23 part 5), as sam on the demo workspace: "plane ticket" is searched as typed and finds
the window-seat fact, a typo fix is only offered beside results ("Did you mean …?") and
clicking it searches the fix, a typo that finds nothing as typed is searched corrected (with the
way back), and About me finds by meaning ("flying") what a substring never
would; an expired fact stays listed on About me, marked, but is never found."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from memstore.management.demo import demo_workspace
from tests.helpers import meaning_ready, write_memory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WINDOW = "Always books a window seat and flies economy on short trips"


@pytest.fixture
def demo(memory_root, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    demo_workspace(say=lambda _: None)
    gone = (timezone.localdate() - timedelta(days=3)).isoformat()
    write_memory(
        memory_root,
        "users/sam/memory/by-agent/ben/profile.md",
        f"- ({gone}) Sam is flying to Porto on Friday <!-- until={gone} -->",
    )
    meaning_ready()
    return memory_root


def _log_in(page, base_url: str) -> None:
    page.goto(f"{base_url}/search/")
    page.get_by_label("Username").fill("sam")
    page.get_by_label("Password").fill("sam-memory")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/search/$"))


@pytest.mark.parametrize("width", [1280, 390])
def test_console_search_is_the_apis_at_both_widths(chromium, live_server, demo, width):
    context = chromium.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.set_default_timeout(15_000)
    _log_in(page, live_server.url)

    box = page.locator("input[name=q]").first
    box.fill("plane ticket")
    box.press("Enter")
    page.wait_for_url(re.compile(r"q=plane"))
    results = page.locator("#results")
    results.locator("li.fact", has_text=WINDOW).wait_for()
    assert "Showing matches for" not in results.inner_text()
    assert "“plane ticket”" in results.locator(".summary").inner_text()
    # Found as typed: the spelling fix is only offered beside the results; clicking searches it.
    suggestion = results.locator(".suggestion")
    assert suggestion.inner_text() == "Did you mean “plan ticket”?"
    suggestion.get_by_role("link", name="“plan ticket”").click()
    page.wait_for_url(re.compile(r"q=plan\+ticket"))
    page.locator("#results .summary", has_text="for “plan ticket”").wait_for()

    # Found nothing as typed (a typo): the fix is searched instead, with the way back.
    box = page.locator("input[name=q]").first
    box.fill("vegetarain options")
    box.press("Enter")
    page.wait_for_url(re.compile(r"q=vegetarain"))
    results.locator(".corrected", has_text="Showing matches for “vegetarian options”.").wait_for()
    assert results.locator("li.fact", has_text="Sam is vegetarian").count() == 1
    results.get_by_role("link", name="Search for “vegetarain options” as typed").click()
    page.wait_for_url(re.compile(r"exact=1"))
    page.locator("#results .summary", has_text="vegetarain options").wait_for()
    assert page.locator("#results .corrected").count() == 0
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0

    page.goto(f"{live_server.url}/me/")
    facts = page.locator("#about-facts li.fact")
    expired = facts.filter(has_text="Sam is flying to Porto on Friday")
    assert "expired" in expired.inner_text()  # listed, marked
    page.get_by_label("Search what the bots know").press_sequentially("flying", delay=40)
    page.wait_for_url(re.compile(r"q=flying"))
    facts.filter(has_text=WINDOW).wait_for()
    assert facts.filter(has_text="Sam is flying to Porto").count() == 0  # expired: not found
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    assert problems == []
    context.close()
