"""The bot page for a person on a keyboard, a screen reader or a phone, in a real browser at desktop
and phone widths: a skip link lands on the fact list, so the first fact's Edit button is a few
keys from page load (an audit counted 39 Tab presses); a heading names the list; a row reads its
text before its badges while the badges still show above it; on a phone the first fact starts on
the first screen even for an editor with a filter set and every block of the header in use."""

import pytest

from memstore.registry.bots import bot_create
from tests.browser.conftest import PHONE, signed_in_page
from tests.helpers import day, write_memory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

KEY_BOUND = 6  # Tab to the skip link, Enter, then a few Tabs past the list's own controls


@pytest.fixture
def setup(memory_root, django_user_model, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("ann", password="pw-ann-1234", is_staff=True)
    write_memory(
        memory_root,
        "agents/ava/memory/profile.md",
        f"- ({day(40)}) Plans offsites and budgets for the Lisbon team",
        f"- ({day(3)}) Prefers rooftop venues for team dinners <!-- type=preference importance=0.8 -->",
    )
    write_memory(
        memory_root, "users/ann/memory/by-agent/ava/profile.md", f"- ({day(9)}) Ann is vegetarian"
    )
    bot_create(slug="ava")
    return memory_root


def _keys_to_first_edit(page) -> list[str]:
    """Presses keys as a keyboard user would, from page load: Tab, and Enter on a "Skip to facts"
    link; returns what got focus, stopping at the first fact's Edit button (or after 45 keys)."""
    edit = page.locator("#fact-list li.fact").first.get_by_role("link", name="Edit", exact=False)
    seen: list[str] = []
    for _ in range(45):
        focused = page.evaluate("document.activeElement && document.activeElement.textContent")
        if (focused or "").strip() == "Skip to facts":
            page.keyboard.press("Enter")
            seen.append("Enter")
        else:
            page.keyboard.press("Tab")
            seen.append(
                page.evaluate("(document.activeElement.textContent || '').trim().slice(0, 30)")
            )
        if edit.evaluate("e => e === document.activeElement"):
            break
    return seen


@pytest.mark.parametrize("width", [1280, 390])
def test_the_first_facts_edit_button_is_a_few_keys_from_page_load(
    chromium, live_server, setup, width
):
    context, page, problems = signed_in_page(
        chromium, live_server.url, width, "/bots/ava/", "ann", "pw-ann-1234"
    )
    keys = _keys_to_first_edit(page)
    assert keys[-1] == "Edit" and len(keys) <= KEY_BOUND, keys
    # The list has a heading a screen reader can jump to.
    assert page.get_by_role("heading", name="Facts", exact=True).count() == 1
    assert problems == []
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_row_reads_its_text_first_but_shows_its_badges_above_it(
    chromium, live_server, setup, width
):
    context, page, problems = signed_in_page(
        chromium, live_server.url, width, "/bots/ava/", "ann", "pw-ann-1234"
    )
    row = page.locator("#fact-list li.fact").first
    spoken = row.inner_text()
    assert spoken.index("Prefers rooftop venues") < spoken.index("preference"), spoken
    text = row.locator(".fact-text").bounding_box()
    badge = row.locator(".badge", has_text="preference").bounding_box()
    assert badge["y"] + badge["height"] <= text["y"], (badge, text)
    assert problems == []
    context.close()


def test_on_a_phone_the_first_fact_starts_on_the_first_screen_with_every_header_block(
    chromium, live_server, setup
):
    # An editor, a search typed and a filter set, on the bot's own memory: the audit measured
    # the first fact's top at 670 px of 844.
    context, page, problems = signed_in_page(
        chromium,
        live_server.url,
        390,
        "/bots/ava/?tab=own&q=venues&tier=profile",
        "ann",
        "pw-ann-1234",
    )
    first = page.locator("#fact-list li.fact").first.bounding_box()
    assert first["y"] + 80 <= PHONE["height"], first  # its badges and the start of its text
    # Nothing folded away is lost: the filters and the other pages open with one press.
    page.get_by_text("More pages").click()
    assert page.locator(".bot-links").get_by_role("link", name="Files").is_visible()
    assert problems == []
    context.close()
