"""A person in a real browser, at desktop and phone widths: log in, search as they type, edit a
fact in place, delete it and undo, clear a bot's memory — with no script or CSP errors."""

import re

import pytest

from memstore.registry.people import editor_add
from tests.helpers import day, write_memory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PROFILE = "agents/ava/memory/profile.md"


@pytest.fixture
def setup(memory_root, django_user_model, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("ann", password="pw-ann-1234")
    write_memory(
        memory_root,
        PROFILE,
        f"- ({day(40)}) Plans offsites and budgets for the Lisbon team",
        f"- ({day(3)}) Prefers rooftop venues for team dinners",
        f"- ({day(2)}) Shows <script>alert('x')</script> literally",
    )
    write_memory(
        memory_root, "users/ann/memory/by-agent/ava/profile.md", f"- ({day(9)}) Ann likes tea"
    )
    editor_add(username="ann", bot="ava")  # ann is not staff: she changes ava as its editor
    return memory_root


def log_in(page, base_url: str) -> None:
    """Open ava's page as ann: the login form first, then back to the page."""
    page.goto(f"{base_url}/bots/ava/")
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill("pw-ann-1234")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/bots/ava/$"))


@pytest.mark.parametrize("width", [1280, 390])
def test_person_searches_edits_deletes_undoes_and_clears(chromium, live_server, setup, width):
    context = chromium.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("dialog", lambda d: problems.append(f"dialog: {d.message}"))
    page.set_default_timeout(20_000)  # a loaded shared machine: htmx swaps can take seconds

    log_in(page, live_server.url)
    facts = page.locator("#fact-list li.fact")
    assert facts.count() == 3
    assert "<script>alert('x')</script>" in page.locator("#fact-list").inner_text()

    # search as you type: the list and the address follow, no page load; matches are marked
    page.get_by_label("Search").press_sequentially("rooftop", delay=40)
    page.wait_for_url(re.compile(r"q=rooftop"))
    page.locator("#fact-list .summary", has_text="for “rooftop” across all tabs").wait_for()
    assert facts.first.locator("mark").inner_text() == "rooftop"

    # edit in place, Escape cancels, then save
    row = facts.first
    row.get_by_role("link", name="Edit").click()
    editor = page.get_by_label("Fact text")
    assert editor.input_value() == "Prefers rooftop venues for team dinners"
    editor.press("Escape")
    page.locator("#fact-list li.fact:not(.editing)").first.wait_for()
    facts.first.get_by_role("link", name="Edit").focus()
    page.keyboard.press("Enter")  # keyboard-usable: Enter on Edit opens the row again
    page.get_by_label("Fact text").press("Escape")
    page.locator("#fact-list li.fact:not(.editing)").first.wait_for()
    facts.first.get_by_role("link", name="Edit").click()
    page.get_by_label("Fact text").fill("Prefers rooftop venues for every team dinner")
    page.get_by_role("button", name="Save").click()
    page.locator("#fact-list .fact-text", has_text="for every team dinner").wait_for()
    assert "for every team dinner" in (setup / PROFILE).read_text()

    # delete, then undo
    facts.first.get_by_role("button", name="Delete").click()
    page.get_by_role("button", name="Undo").wait_for()
    assert "every team dinner" not in (setup / PROFILE).read_text()
    page.get_by_role("button", name="Undo").click()
    page.get_by_role("button", name="Undo").wait_for(state="detached")  # the undo's swap is done
    page.locator("#fact-list .fact-text", has_text="for every team dinner").wait_for()
    assert "every team dinner" in (setup / PROFILE).read_text()

    # clear all, behind a confirmation that counts and says what stays
    # After the edit, delete and undo the search box still holds what was typed (a control
    # swapped in and used before htmx wired it once loaded the page afresh without the query);
    # emptying it and pressing Enter lists every fact again.
    box = page.get_by_label("Search")
    assert box.input_value() == "rooftop"
    box.fill("")
    box.press("Enter")
    page.locator("#fact-list .summary", has_text="3 facts").wait_for()
    assert box.input_value() == ""
    before = (setup / PROFILE).read_bytes()
    page.get_by_role("link", name=re.compile("Clear all")).click()
    confirm = page.locator(".confirm")
    confirm.wait_for()
    assert "removes 3 facts" in confirm.inner_text()
    assert "1 fact about people" in confirm.inner_text()
    # Cancel has the focus: one Enter does not wipe a bot
    page.wait_for_function(
        "document.activeElement && document.activeElement.textContent === 'Cancel'"
    )
    confirm.get_by_role("button", name="Remove 3 facts").click()
    page.get_by_text("Removed 3 facts from ava").wait_for()
    assert facts.count() == 0
    assert "Ann likes tea" in (setup / "users/ann/memory/by-agent/ava/profile.md").read_text()

    # undo clear: every fact back, byte for byte
    page.get_by_role("button", name="Undo clear").click()
    page.get_by_text("Put back 3 facts").wait_for()
    assert facts.count() == 3
    assert (setup / PROFILE).read_bytes() == before

    # nothing sticks out of a phone's screen
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    assert problems == []
    context.close()


def test_refusals_are_shown_where_they_were_asked_for(chromium, live_server, setup):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)  # a loaded shared machine: htmx swaps can take seconds
    log_in(page, live_server.url)

    # A hand edit removed a fact the page still shows: Delete says so in that row (404).
    dinners = f"- ({day(3)}) Prefers rooftop venues for team dinners\n"
    (setup / PROFILE).write_text((setup / PROFILE).read_text().replace(dinners, ""))
    page.locator("#fact-list li.fact", has_text="rooftop venues").get_by_role(
        "button", name="Delete"
    ).click()
    page.locator("#fact-list li.removed p[role=alert]").wait_for()

    # A refusal (403) lands where it was asked for, and the list can be searched again after.
    page.evaluate(
        "htmx.ajax('GET', '/bots/ava/?tab=people&scope=user:sam',"
        " {target: '#fact-list', swap: 'outerHTML'})"
    )
    page.locator("p#fact-list.error", has_text="not shown on this tab").wait_for()
    assert page.locator("#problem").is_hidden()
    page.get_by_label("Search").fill("lisbon")
    page.locator("#fact-list .summary", has_text="for “lisbon”").wait_for()
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_delete_and_erase_asks_first_with_cancel_focused(chromium, live_server, setup, width):
    """An irreversible erase asks first, and the safe answer is the focused one: Enter on the
    confirmation cancels; only the red button erases."""
    context = chromium.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)  # a loaded shared machine: htmx swaps can take seconds
    log_in(page, live_server.url)
    row = page.locator("#fact-list li.fact", has_text="rooftop")
    row.get_by_role("link", name=re.compile("Delete and erase")).click()
    confirm = page.locator("#fact-list li.fact.editing")
    confirm.get_by_text("This cannot be undone.").wait_for()
    assert page.evaluate("document.activeElement.textContent") == "Cancel"
    page.keyboard.press("Enter")
    confirm.wait_for(state="detached")
    assert "rooftop" in (setup / PROFILE).read_text()
    row.get_by_role("link", name=re.compile("Delete and erase")).click()
    page.get_by_role("button", name="Delete and erase").click()
    page.locator("#fact-list li.fact.removed").wait_for()
    assert "rooftop" not in (setup / PROFILE).read_text()
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_slow_save_shows_it_is_saving(chromium, live_server, setup, width):
    """While a save is on its way its form dims and says "Saving…" (slowed here on purpose)."""
    context = chromium.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)  # a loaded shared machine: htmx swaps can take seconds
    log_in(page, live_server.url)
    held = []
    page.route(
        "**/facts/edit/**",
        lambda route: held.append(route) if route.request.method == "POST" else route.continue_(),
    )
    row = page.locator("#fact-list li.fact", has_text="rooftop")
    row.get_by_role("link", name=re.compile("^Edit")).click()
    page.get_by_label("Fact text").fill("Prefers rooftop venues for summer dinners")
    page.get_by_role("button", name="Save").click()
    form = page.locator("#fact-list li.fact.editing form")
    page.wait_for_function("document.querySelector('#fact-list li.fact.editing form.htmx-request')")
    assert form.evaluate("f => getComputedStyle(f).opacity") == "0.6"
    saying = form.locator(".actions").evaluate("a => getComputedStyle(a, '::after').content")
    assert "Saving" in saying
    held[0].continue_()
    page.locator("#fact-list .fact-text", has_text="summer dinners").wait_for()
    context.close()
