"""The Links and Health pages in a real browser at phone width: the graph fits a 390 px screen
and its nodes are links, and a one-click fix works, with no script or CSP errors."""

import re

import pytest

from memstore.facts import markdown
from memstore.registry.people import editor_add
from tests.helpers import day, write_memory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VENUE = "Prefers rooftop venues for team dinners"
PLANS = "Plans offsites and budgets for the Lisbon team"


@pytest.fixture
def setup(memory_root, django_user_model, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.EMBEDDINGS = "none"
    django_user_model.objects.create_user("ann", password="pw-ann-1234")
    plans = markdown.fact_identity(PLANS)
    write_memory(
        memory_root,
        "agents/ava/memory/profile.md",
        f"- ({day(40)}) {PLANS}",
        f"- ({day(3)}) {VENUE} <!-- rel=exemplifies:{plans},related_to:{'f' * 16} -->",
        f"- ({day(2)}) Build succeeded",
    )
    editor_add(username="ann", bot="ava")  # fixes on the Health page are edits
    return memory_root


def test_graph_and_health_at_phone_width(chromium, live_server, setup, tmp_path):
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(f"{live_server.url}/bots/ava/graph/")
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill("pw-ann-1234")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/bots/ava/graph/$"))
    box = page.locator("figure.graph svg").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert page.locator("figure.graph a.node").count() == 3
    page.screenshot(path=str(tmp_path / "graph-390.png"), full_page=True)
    page.locator("figure.graph a.node.centre, figure.graph a.node").first.click()
    page.wait_for_url(re.compile(r"\?fact=[0-9a-f]{16}$"))
    assert page.locator("figure.graph a.node.centre").count() == 1

    page.goto(f"{live_server.url}/bots/ava/health/")
    finding = page.locator("li.finding", has_text="Build succeeded")
    finding.get_by_role("button", name="Archive").click()
    page.wait_for_url(re.compile(r"/bots/ava/health/$"))
    assert page.locator("li.finding", has_text="Build succeeded").count() == 0
    assert "Build succeeded" not in (setup / "agents/ava/memory/profile.md").read_text()
    assert problems == []
    context.close()
