"""A fact's versions and the as-of date picker in a real browser, at desktop and phone widths:
edit a fact, open its versions, restore the old text; pick a date and see what the bot knew."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from memstore.registry.people import editor_add
from tests.helpers import day, write_memory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def setup(memory_root, django_user_model, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("ann", password="pw-ann-1234")
    write_memory(
        memory_root,
        "agents/ava/memory/profile.md",
        f"- ({day(40)}) Plans offsites and budgets for the Lisbon team",
        f"- ({day(3)}) Prefers rooftop venues for team dinners",
    )
    editor_add(username="ann", bot="ava")  # ann is not staff: she changes ava as its editor
    return memory_root


@pytest.mark.parametrize("width", [1280, 390])
def test_restore_a_version_and_pick_a_date(chromium, live_server, setup, width):
    context = chromium.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/bots/ava/")
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill("pw-ann-1234")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/bots/ava/$"))

    row = page.locator("#fact-list li.fact", has_text="rooftop")
    row.get_by_role("link", name="Edit").click()
    page.get_by_label("Fact text").fill("Prefers garden venues for team dinners")
    page.get_by_role("button", name="Save").click()
    edited = page.locator("#fact-list li.fact", has_text="garden venues")
    edited.wait_for()
    edited.get_by_role("link", name="Versions").click()
    page.wait_for_url(re.compile(r"/bots/ava/versions/"))
    assert "garden venues" in page.locator("#current-text").inner_text()
    assert "rooftop venues" in page.locator("#versions").inner_text()
    page.get_by_role("button", name="Restore this version").click()
    page.locator("#current-text", has_text="rooftop venues").wait_for()
    assert "garden venues" in page.locator("#versions").inner_text()  # kept as a version
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    more = page.get_by_text("More pages")
    if more.is_visible():  # on a phone the less used pages of the bot fold under it
        more.click()
    page.get_by_role("link", name="As of a date").click()
    page.wait_for_url(re.compile(r"/bots/ava/as-of/"))
    tomorrow = timezone.localdate() + timedelta(days=1)
    page.get_by_label("As of").fill(tomorrow.isoformat())
    page.get_by_role("button", name="Show").click()
    page.locator("#as-of-summary", has_text="2 facts known").wait_for()
    assert "rooftop venues" in page.locator("ol.as-of").inner_text()
    page.get_by_label("As of").fill("2001-01-01")
    page.get_by_role("button", name="Show").click()
    page.get_by_text("Nothing was known yet on that day.").wait_for()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert problems == []
    context.close()
