"""Staff share a person's private memory with the workspace in a real browser, at desktop and
phone widths: the button is there only for staff, the confirmation says who will see it with
Cancel focused (Enter cancels), and sharing moves the memory to the workspace tab."""

import re

import pytest

from memstore.registry.bots import bot_create
from memstore.registry.people import editor_add
from tests.helpers import day, write_memory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ANN = "users/ann/memory/by-agent/ava/profile.md"
SHARED = "server/workspace/memory/by-agent/ava/profile.md"


@pytest.fixture
def setup(memory_root, django_user_model, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("boss", password="pw-boss-1234", is_staff=True)
    django_user_model.objects.create_user("ann", password="pw-ann-1234")
    for slug in ("ava", "ben"):
        bot_create(slug=slug)
    editor_add(username="ann", bot="ava")
    write_memory(memory_root, "agents/ava/memory/profile.md", f"- ({day(4)}) Plans offsites")
    write_memory(memory_root, ANN, f"- ({day(9)}) Ann likes tea in the afternoon")
    return memory_root


def log_in(page, base_url: str, who: str) -> None:
    page.goto(f"{base_url}/bots/ava/?tab=people")
    page.get_by_label("Username").fill(who)
    page.get_by_label("Password").fill(f"pw-{who}-1234")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/bots/ava/"))


@pytest.mark.parametrize("width", [1280, 390])
def test_staff_share_after_seeing_who_will_read_it(chromium, live_server, setup, width):
    context = chromium.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "boss")

    row = page.locator("#fact-list li.fact", has_text="Ann likes tea")
    share = row.get_by_role("link", name=re.compile("Share .* with the workspace"))
    share.click()
    confirm = page.locator("#fact-list li.fact.editing")
    confirm.get_by_text("Who will see it: every person in this workspace").wait_for()
    assert "2 bots: ava, ben" in confirm.inner_text()
    assert "can’t be made private again" in confirm.inner_text()
    assert page.evaluate("document.activeElement.textContent") == "Cancel"
    button = confirm.get_by_role("button", name="Share with workspace")
    box = button.bounding_box()
    assert box is not None and box["x"] + box["width"] <= width  # on screen at this width
    page.keyboard.press("Enter")  # the focused, safe answer
    confirm.wait_for(state="detached")
    assert "Ann likes tea" in (setup / ANN).read_text()
    assert not (setup / SHARED).exists()

    row.get_by_role("link", name=re.compile("Share .* with the workspace")).click()
    page.get_by_role("button", name="Share with workspace").click()
    page.locator("#fact-list li.fact.removed").get_by_text("Shared with the workspace").wait_for()
    assert "Ann likes tea in the afternoon" in (setup / SHARED).read_text()
    assert "Ann likes tea" not in (setup / ANN).read_text()

    page.goto(f"{live_server.url}/bots/ava/?tab=workspace")
    shared = page.locator("#fact-list li.fact", has_text="Ann likes tea")
    assert shared.locator(".badge", has_text="shared").count() == 1
    assert shared.get_by_role("link", name=re.compile("Share")).count() == 0
    assert problems == []
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_person_who_is_not_staff_never_sees_the_button(chromium, live_server, setup, width):
    context = chromium.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, live_server.url, "ann")
    row = page.locator("#fact-list li.fact", has_text="Ann likes tea")
    row.wait_for()
    assert row.get_by_role("link", name=re.compile("Share")).count() == 0
    context.close()
