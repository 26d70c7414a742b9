"""The console follow-ups in a real browser at desktop and phone widths: typing a search on a
bot's page (and pressing Enter) never calls the reranker (a fake local /v1/rerank server counts
its calls) and shows the fusion's order; "Why here?" on the bot page opens its breakdown in
place; the Connect page prints this server's /mcp for signing in with OAuth beside the token
way. Nothing sticks out of a phone's screen; no script or CSP errors."""

import re

import pytest

from memstore.registry.bots import bot_create
from tests.browser.conftest import signed_in_page
from tests.helpers import day, write_memory
from tests.memstore.recall.test_rerank import remote  # noqa: F401 (the fake reranker fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def setup(memory_root, django_user_model, settings, remote):  # noqa: F811
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.EMBEDDINGS = "none"
    django_user_model.objects.create_superuser("boss", password="pw-boss-1234")
    bot_create(slug="ava")
    write_memory(
        memory_root,
        "agents/ava/memory/profile.md",
        f"- ({day(9)}) Booked a flight to Lisbon for the offsite",
        f"- ({day(8)}) The Lisbon office has a rooftop terrace with a view of the river",
        f"- ({day(7)}) Prefers tea over coffee",
        f"- ({day(6)}) Lisbon trams are best before nine",
    )
    return remote(["terrace", "trams", "flight"])


def _page(chromium, live_server, width, path):
    return signed_in_page(chromium, live_server.url, width, path, "boss", "pw-boss-1234")


def _fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0


@pytest.mark.parametrize("width", [1280, 390])
def test_typing_on_the_bot_page_never_reranks_and_why_here_opens(
    chromium, live_server, setup, width
):
    from playwright.sync_api import expect

    reranker = setup
    context, page, problems = _page(chromium, live_server, width, "/bots/ava/")
    page.get_by_label("Search").press_sequentially("lisbon", delay=120)
    results = page.locator("#fact-list li.fact")
    expect(results).to_have_count(3)
    # Enter searches again: wait for that answer's list to replace the one typing brought
    # (the URL says q=lisbon already), or "Why here?" would open in a list about to go.
    page.locator("#fact-list").evaluate("list => list.dataset.typed = '1'")
    page.get_by_label("Search").press("Enter")
    page.wait_for_url(re.compile(r"q=lisbon"))
    page.locator("#fact-list:not([data-typed])").wait_for()
    assert results.count() == 3
    assert reranker.requests == []  # neither the keystrokes nor Enter called it

    first = results.nth(0)
    first.get_by_role("link", name="Why here?").click()
    why = first.locator("dl.why")
    why.wait_for()
    text = why.inner_text()
    assert "1st of the results" in text and "shares lisbon" in text
    assert "not used here: the console shows the fusion's order" in text
    assert reranker.requests == []
    assert "/bots/ava/" in page.url and "why" not in page.url  # stayed on the bot page
    assert _fits(page)
    assert problems == []
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_connect_page_shows_the_mcp_url_for_oauth_and_the_token_way(
    chromium, live_server, setup, width
):
    context, page, problems = _page(chromium, live_server, width, "/bots/ava/connect/")
    page.get_by_role("heading", name="MCP clients").wait_for()
    assert page.locator("#mcp-url-ava").inner_text() == f"{live_server.url}/mcp"
    oauth = page.locator("#mcp-oauth-ava").inner_text()
    assert oauth == f"claude mcp add --transport http memory {live_server.url}/mcp"
    assert "Authorization: Bearer mct_" in page.locator("#mcp-token-ava").inner_text()
    assert "consent page" in page.locator("main").inner_text()
    page.get_by_role("link", name="Connections").first.wait_for()
    assert _fits(page)
    assert problems == []
    context.close()
