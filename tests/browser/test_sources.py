"""Memory sources in a real browser on a phone (390 px): after a bot's prompt, recall and
report through the API, ann opens the exchange, sees the three lists, edits one fact and
forgets another in place, and follows a fact to the replies it was behind."""

import re

import pytest

from memstore.models import Exchange
from memstore.registry.bots import bot_create
from memstore.registry.people import editor_add, person_add, person_link
from memstore.registry.tokens import token_create
from tests.browser.conftest import signed_in_page
from tests.helpers import BotClient, day, write_memory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OFFSITE = "Plans offsites and budgets for the Lisbon team"
ROOFTOP = "Prefers rooftop venues for team dinners"
BUDGET = "Ann keeps the offsite budget under 5000 euros"


@pytest.fixture
def exchange_id(memory_root, django_user_model, settings) -> int:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("ann", password="pw-ann-1234")
    write_memory(
        memory_root,
        "agents/ava/memory/profile.md",
        f"- ({day(40)}) {OFFSITE}",
        f"- ({day(3)}) {ROOFTOP}",
    )
    write_memory(memory_root, "users/ann/memory/by-agent/ava/profile.md", f"- ({day(9)}) {BUDGET}")
    bot_create(slug="ava")
    person_add(name="ann", username="ann")
    person_link(person="ann", bot="ava")
    editor_add(username="ann", bot="ava")
    ava = BotClient(token=token_create(bot="ava").token, room_id="dm-ann", person="ann")
    digest = ava.get("/prompt").body["digest"]
    assert ava.get("/recall", query="rooftop venues").status == 200
    body = {"message": "Plan dinner?", "reply": "Rooftop it is.", "message_id": "m1"}
    answer = ava.post(
        "/exchanges", body | {"reply_id": "r1", "digest": digest, "recalled": [BUDGET]}
    )
    assert answer.status == 202, answer.body
    return int(answer.body["id"])


def test_memory_sources_on_a_phone(chromium, live_server, exchange_id, memory_root):
    path = f"/bots/ava/exchange/?id={exchange_id}"
    context, page, problems = signed_in_page(
        chromium, live_server.url, 390, path, "ann", "pw-ann-1234"
    )
    sources = page.locator("section.sources")
    for heading in ("Retrieved", "Injected", "Cited"):
        assert sources.get_by_role("heading", name=re.compile(heading)).is_visible()
    retrieved = sources.get_by_role("list").nth(0)
    cited = sources.get_by_role("list").nth(2)
    assert ROOFTOP in retrieved.inner_text() and BUDGET in cited.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    cited.locator("li.fact", has_text=BUDGET).get_by_role("link", name="Edit").click()
    page.get_by_label("Fact text").fill("Ann keeps the offsite budget under 6000 euros")
    page.get_by_role("button", name="Save").click()
    cited.locator("li.fact", has_text="under 6000 euros").wait_for()

    row = retrieved.locator("li.fact", has_text=ROOFTOP)
    row.get_by_role("button", name="Delete").click()
    retrieved.locator("li", has_text="Undo").or_(retrieved.get_by_text("Deleted")).first.wait_for()
    profile = (memory_root / "agents/ava/memory/profile.md").read_text()
    assert ROOFTOP not in profile and OFFSITE in profile  # forgotten in the file, the other kept

    sources.locator("li.fact", has_text=OFFSITE).get_by_role(
        "link", name=re.compile("^Seen by")
    ).click()
    page.wait_for_url(re.compile(r"/bots/ava/facts/seen/"))
    seen = page.locator("ul.seen li")
    assert seen.count() == 1 and "r1" in seen.inner_text() and "injected" in seen.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert Exchange.objects.count() == 1
    assert problems == []
    context.close()
