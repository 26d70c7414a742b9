"""A person on their About me page in a real browser, at desktop and phone widths: what every
bot knows about them, search as they type, pause memory and exclude a topic (taking effect on a
bot's very next API call), forget a fact everywhere, export, and what can reach their prompts —
with nothing sticking out of a phone's screen and no script or CSP errors."""

import io
import re
import zipfile

import pytest

from memstore.registry.bots import bot_create
from memstore.registry.people import person_add, person_link
from memstore.registry.tokens import token_create
from tests.helpers import BotClient, day, texts_on_disk, write_memory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def setup(memory_root, django_user_model, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("ann", password="pw-ann-1234")
    write_memory(
        memory_root,
        "users/ann/memory/by-agent/ava/profile.md",
        f"- ({day(9)}) Ann likes tea",
        f"- ({day(8)}) Ann lives in Lisbon <!-- src=room:dm-ann/msg:4 via=learner -->",
    )
    write_memory(
        memory_root,
        "users/ann/memory/by-agent/ben/profile.md",
        f"- ({day(9)}) Ann likes tea",
        f"- ({day(5)}) Ann runs on Sundays",
    )
    bot_create(slug="ava")
    person_add(name="ann", username="ann")
    person_link(person="ann", bot="ava")
    return memory_root


def _log_in(page, base_url: str) -> None:
    page.goto(f"{base_url}/me/")
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill("pw-ann-1234")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/me/$"))


@pytest.mark.parametrize("width", [1280, 390])
def test_about_me_search_controls_forget_export_and_prompts(chromium, live_server, setup, width):
    bot = BotClient(token=token_create(bot="ava", name="t").token, person="ann")
    context = chromium.new_context(viewport={"width": width, "height": 900}, accept_downloads=True)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("dialog", lambda d: d.accept())
    page.set_default_timeout(10_000)

    _log_in(page, live_server.url)
    facts = page.locator("#about-facts li.fact")
    assert facts.count() == 4  # tea twice (ava and ben), Lisbon, Sundays
    lisbon = facts.filter(has_text="Ann lives in Lisbon")
    assert "written by ava" in lisbon.inner_text()
    assert "from room dm-ann" in lisbon.inner_text()

    page.get_by_label("Search what the bots know").press_sequentially("sunday", delay=40)
    page.wait_for_url(re.compile(r"q=sunday"))
    page.locator("#about-facts .summary", has_text="1 fact match").wait_for()
    assert "written by ben" in facts.first.inner_text()
    page.get_by_label("Search what the bots know").fill("")
    page.locator("#about-facts .summary", has_text="4 facts").wait_for()

    # Edit in place, as ann (not an editor of ben): the file changes, the row stays ben's.
    facts.filter(has_text="Ann runs on Sundays").get_by_role("link", name="Edit").click()
    page.get_by_label("Fact text").fill("Ann runs on Saturdays")
    page.get_by_role("button", name="Save").click()
    facts.filter(has_text="Ann runs on Saturdays").wait_for()
    ben = texts_on_disk(setup)["users/ann/memory/by-agent/ben/profile.md"]
    assert ben == ["Ann likes tea", "Ann runs on Saturdays"]

    # Pause: nothing is learned and ann's memory stays out of prompts, but a save ann asks the
    # bot for still goes through (as the design says).
    page.get_by_role("button", name="Pause memory").click()
    page.get_by_text("Memory is paused.").wait_for()
    assert (
        bot.post("/facts", {"text": "Ann asked to note her new number", "scope": "user"}).status
        == 201
    )
    assert "Ann likes tea" not in bot.get("/prompt").body["text"]
    page.get_by_label("Add a topic").fill("Divorce")
    page.get_by_role("button", name="Exclude").click()
    page.locator("#controls .topic", has_text="divorce").wait_for()
    page.get_by_role("button", name="Resume memory").click()
    page.get_by_text("Memory is on.").wait_for()
    refused = bot.post("/facts", {"text": "Ann got divorced", "scope": "user"})
    assert (refused.status, refused.body["code"]) == (422, "topic_excluded")
    assert bot.post("/facts", {"text": "Ann moved to Porto", "scope": "user"}).status == 201
    page.locator("#controls summary").click()
    assert "ann excluded the topic “divorce”" in page.locator("#controls .history").inner_text()

    # Forget everywhere: both bots' copies of the tea fact go.
    facts.filter(has_text="Ann likes tea").first.get_by_role(
        "button", name="Forget everywhere"
    ).click()
    page.get_by_text("Forgotten everywhere (ava, ben).").wait_for()
    assert "tea" not in repr(texts_on_disk(setup))

    with page.expect_download() as download:
        page.get_by_role("link", name="Export my memory").click()
    archive = zipfile.ZipFile(io.BytesIO(download.value.path().read_bytes()))
    assert "facts.jsonl" in archive.namelist()
    assert "users/ann/memory/by-agent/ben/profile.md" in archive.namelist()

    page.get_by_role("link", name="What can reach my prompts").click()
    direct = page.locator('section.reach[data-bot="ava"][data-kind="direct"]')
    assert "Ann lives in Lisbon" in direct.locator(".shown").inner_text()
    group = page.locator('section.reach[data-bot="ava"][data-kind="group"]')
    assert "Nothing of your memory goes into this prompt." in group.inner_text()

    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    assert problems == []
    context.close()
