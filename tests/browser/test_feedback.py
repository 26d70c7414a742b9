"""A person confirms a fact, or marks it wrong, on a bot's page in a real browser at a phone's
width: the four controls fit the screen, a click swaps the row in place (htmx) with the mark
shown, and the file carries it."""

import pytest

from memstore.registry.bots import bot_create
from memstore.registry.people import editor_add
from tests.browser.conftest import signed_in_page
from tests.helpers import day, write_memory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PROFILE = "agents/ava/memory/profile.md"


@pytest.fixture
def setup(memory_root, django_user_model, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.EMBEDDINGS = "none"
    django_user_model.objects.create_user("ann", password="pw-ann-1234")
    bot_create(slug="ava")
    editor_add(username="ann", bot="ava")
    write_memory(memory_root, PROFILE, f"- ({day(4)}) Plans offsites for the Lisbon team")
    return memory_root


def test_confirm_and_mark_wrong_at_phone_width(chromium, live_server, setup):
    context, page, problems = signed_in_page(
        chromium, live_server.url, 390, "/bots/ava/", "ann", "pw-ann-1234"
    )
    row = page.locator("#fact-list li.fact", has_text="Plans offsites")
    for name in ("Still true", "Outdated", "Wrong", "Do not use"):
        button = row.get_by_role("button", name=name, exact=True)
        box = button.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, name
        assert box["height"] >= 36, name  # a finger-sized target
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390  # nothing pushes the page sideways

    row.get_by_role("button", name="Wrong", exact=True).click()
    row = page.locator("#fact-list li.fact", has_text="Plans offsites")
    row.locator(".badge", has_text="marked wrong").wait_for()
    assert "mark=wrong" in (setup / PROFILE).read_text()
    assert page.url.endswith("/bots/ava/")  # swapped in place, no page load

    row.get_by_role("button", name="Still true", exact=True).click()
    page.locator("#fact-list li.fact .badge", has_text="verified").wait_for()
    text = (setup / PROFILE).read_text()
    assert "checked=" in text and "mark=" not in text
    assert problems == []
    context.close()
