"""'Why here?' on the console's search, in a real browser at desktop and phone widths: a result
opens its breakdown in place (words, meaning, fusion) without leaving the page, a second result
its own, and nothing sticks out of a phone's screen; no script or CSP errors."""

import re

import pytest

from memstore.registry.bots import bot_create
from tests.browser.conftest import signed_in_page
from tests.helpers import day, write_memory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def setup(memory_root, django_user_model, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.EMBEDDINGS = "none"  # words only: the breakdown says meaning was not searched
    django_user_model.objects.create_superuser("boss", password="pw-boss-1234")
    bot_create(slug="ava")
    write_memory(
        memory_root,
        "agents/ava/memory/profile.md",
        f"- ({day(9)}) Booked a flight to Lisbon for the offsite",
        f"- ({day(8)}) The Lisbon office has a rooftop terrace with a view of the river",
        f"- ({day(7)}) Prefers tea over coffee",
        f"- ({day(6)}) Owns a golden retriever called Biscuit",
        f"- ({day(5)}) Q3 planning starts in July",
    )
    return memory_root


@pytest.mark.parametrize("width", [1280, 390])
def test_why_here_opens_the_breakdown_under_the_result(chromium, live_server, setup, width):
    context, page, problems = signed_in_page(
        chromium, live_server.url, width, "/search/?q=lisbon+flight", "boss", "pw-boss-1234"
    )
    page.wait_for_url(re.compile(r"/search/\?q=lisbon"))

    results = page.locator("#results li.fact")
    assert results.count() == 2
    first = results.nth(0)
    assert "Booked a flight to Lisbon" in first.inner_text()
    first.get_by_role("link", name="Why here?").click()
    why = first.locator("dl.why")
    why.wait_for()
    text = why.inner_text()
    assert "1st of the results" in text
    assert re.search(r"shares flight, lisbon; word score \d+\.\d\d \(1st by words\)", text)
    assert "not searched (no embedding model)" in text
    assert "after fusion" in text
    assert page.url.endswith("/search/?q=lisbon+flight")  # stayed on the search

    second = results.nth(1)
    second.get_by_role("link", name="Why here?").click()
    second.locator("dl.why").wait_for()
    assert "2nd of the results" in second.locator("dl.why").inner_text()
    assert "shares lisbon;" in second.locator("dl.why").inner_text()
    assert first.locator("dl.why").count() == 1  # the first one's is still there, once

    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    assert problems == []
    context.close()
