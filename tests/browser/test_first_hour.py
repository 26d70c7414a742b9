"""The console people reach for, in a real browser at desktop and phone widths: the first fact
on a phone's first screen, search across tabs with a typo, add a fact and edit every field,
bulk delete and undo, review what the learner proposes and follow a fact to its exchange,
make a bot token and copy it; no script or CSP errors."""

import re

import pytest

from memstore.learning.activity import activity_list
from tests.helpers import FakeModel, day, direct, learned, write_memory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PROFILE = "agents/ava/memory/profile.md"


@pytest.fixture
def setup(memory_root, django_user_model, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("ann", password="pw-ann-1234", is_staff=True)
    write_memory(
        memory_root,
        PROFILE,
        f"- ({day(40)}) Plans offsites and budgets for the Lisbon team",
        f"- ({day(3)}) Prefers rooftop venues for team dinners",
    )
    write_memory(
        memory_root,
        "users/ann/memory/by-agent/ava/profile.md",
        f"- ({day(9)}) Ann is vegetarian",
    )
    return memory_root


@pytest.fixture
def proposals(setup, settings):
    model = FakeModel()
    settings.LEARNING_BASE_URL = model.url
    settings.LEARNING_MODEL = "scripted"
    settings.LEARNING_API_KEY = "k"
    settings.LEARNING_MODE = "report"
    settings.LEARNING_RETRY_ATTEMPTS = 1
    settings.LEARNING_RETRY_WAIT = 0.0
    learned(
        direct("ava", "ann", "dm-ann"),
        model,
        "profile: Lives in Lisbon\nprofile: Drinks oat milk",
        message_id="m7",
    )
    assert len(activity_list(kinds=["would_save"]).items) == 2
    yield model
    model.close()


def _open(chromium, live_server, width: int, height: int = 900):
    context = chromium.new_context(viewport={"width": width, "height": height})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    problems: list[str] = []
    # A refused form is answered 422 on purpose (Chromium logs that status): not a problem.
    page.on(
        "console",
        lambda m: problems.append(m.text) if m.type == "error" and "422" not in m.text else None,
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.set_default_timeout(15_000)
    page.goto(f"{live_server.url}/bots/ava/")
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill("pw-ann-1234")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/bots/ava/$"))
    return context, page, problems


def test_phone_shows_the_first_fact_on_the_first_screen(chromium, live_server, setup):
    context, page, problems = _open(chromium, live_server, 390, 844)
    first = page.locator("#fact-list li.fact").first
    box = first.bounding_box()
    assert box is not None and box["y"] + 40 < 844  # its date and text are on screen
    assert page.get_by_label("Tier").is_hidden()  # folded away
    page.get_by_text("Filters", exact=True).click()
    assert page.get_by_label("Tier").is_visible()
    assert problems == []
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_search_add_edit_bulk_delete_and_undo(chromium, live_server, setup, width):
    context, page, problems = _open(chromium, live_server, width)
    facts = page.locator("#fact-list li.fact")

    # a typo, and a fact on another tab: both found, labelled by scope
    page.get_by_label("Search").press_sequentially("vegetarien", delay=30)
    page.locator("#fact-list .summary", has_text="About people").wait_for()
    assert "about ann" in facts.first.inner_text()
    page.get_by_label("Search").fill("budjet")
    page.locator("#fact-list .corrected", has_text="“budget”").wait_for()
    assert facts.first.locator("mark").inner_text().lower().startswith("budget")
    page.get_by_label("Search").fill("")

    # add a fact with every field; an error is shown beside its field first
    page.get_by_role("link", name="Add a fact").click()
    page.get_by_label("Text").fill("Prefers window seats")
    page.get_by_label("Importance (0–1)").fill("3")
    page.get_by_role("button", name="Save fact").click()
    page.locator("p.error", has_text="less than or equal to 1").wait_for()
    assert page.get_by_label("Text").input_value() == "Prefers window seats"
    page.get_by_label("Importance (0–1)").fill("0.8")
    page.get_by_label("Tier").select_option("profile")
    page.get_by_label("Type").select_option("preference")
    page.get_by_role("button", name="Save fact").click()
    page.get_by_text("Saved to own: Prefers window seats").wait_for()
    assert "importance=0.8" in (setup / PROFILE).read_text()

    # edit every field in place: type and visibility
    row = facts.filter(has_text="Prefers window seats")
    row.get_by_role("link", name=re.compile("^Edit")).click()
    page.locator("li.editing select[name=visibility]").select_option("hidden")
    page.locator("li.editing select[name=type]").select_option("decision")
    page.locator("li.editing").get_by_role("button", name="Save").click()
    facts.filter(has_text="Prefers window seats").locator(".hidden-badge").wait_for()
    assert "type=decision" in (setup / PROFILE).read_text()

    # bulk select and delete, then one undo puts both back where they were
    before = (setup / PROFILE).read_bytes()
    for text in ("Prefers window seats", "Prefers rooftop venues"):
        facts.filter(has_text=text).get_by_role("checkbox").check()
    page.get_by_role("button", name="Delete selected").click()
    page.get_by_text("Deleted 2 facts").wait_for()
    page.get_by_role("button", name="Undo delete").click()
    page.get_by_text("Put back 2 facts").wait_for()
    assert (setup / PROFILE).read_bytes() == before

    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0 and problems == []
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_review_provenance_and_tokens(chromium, live_server, proposals, width):
    context, page, problems = _open(chromium, live_server, width)

    # the inbox's count is in the navigation; accept one, edit then accept the other
    page.get_by_role("link", name=re.compile(r"^Review\s*2")).click()
    page.get_by_role("button", name="Accept ‘Lives in Lisbon’").click()
    page.get_by_text("Accepted 1 proposal.").wait_for()
    page.get_by_text("Edit then accept").click()
    page.get_by_label("Text to save").fill("Drinks oat milk, never dairy")
    page.get_by_role("button", name="Save edited").click()
    page.get_by_text("Nothing waits for review.").wait_for()

    # a learned fact leads to its exchange in two clicks, and the exchange to its siblings
    page.goto(f"{live_server.url}/bots/ava/?tab=people")
    page.locator("li.fact", has_text="Lives in Lisbon").get_by_role(
        "link", name="from room dm-ann"
    ).click()
    page.get_by_role("heading", name="Where it came from").wait_for()
    produced = page.locator("li.fact .fact-text").all_inner_texts()
    assert sorted(produced) == ["Drinks oat milk, never dairy", "Lives in Lisbon"]

    # a bot token, shown once, copied with its button
    page.goto(f"{live_server.url}/bots/ava/tokens/")
    page.get_by_label("Name (what it is for)").fill("laptop")
    page.get_by_role("button", name="Create token").click()
    token = page.locator("#new-token").inner_text().strip()
    assert token.startswith("mct_")
    page.get_by_role("button", name="Copy token").click()
    page.get_by_role("button", name="Copied").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == token
    page.reload()
    assert token not in page.content() and "laptop" in page.content()

    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0 and problems == []
    context.close()
