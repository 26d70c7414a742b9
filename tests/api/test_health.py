"""GET /api/v1/health/memory and POST /api/v1/health/memory/fix, as a bot."""

import pytest

from tests.helpers import day, facts_on_disk, log, profile

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def words_only(settings):
    settings.EMBEDDINGS = "none"


def test_a_bot_reads_its_memory_health_and_fixes_a_finding(bot_a, memory_root):
    profile(
        memory_root,
        "bot",
        "a",
        f"- ({day(1)}) Build succeeded",
        f"- ({day(1)}) Prefers tea",
        bot="a",
    )
    report = bot_a.get("/health/memory")
    assert report.status == 200
    [finding] = report.body["findings"]
    assert (
        finding["kind"],
        finding["why"],
        finding["fact"]["text"],
        finding["fixes"],
    ) == ("junk", "transient status", "Build succeeded", ["archive"])
    assert report.body["counts"]["junk"] == 1
    fixed = bot_a.post("/health/memory/fix", {"action": "archive", "id": finding["fact"]["id"]})
    assert (fixed.status, fixed.body) == (200, {"changed": 1})
    assert [f.text for f in facts_on_disk(memory_root)["agents/a/memory/profile.md"]] == [
        "Prefers tea"
    ]
    assert bot_a.get("/health/memory").body["findings"] == []


def test_hidden_facts_and_other_bots_memory_are_left_out(bot_a, memory_root):
    profile(
        memory_root, "bot", "a", f"- ({day(1)}) Build succeeded <!-- visibility=hidden -->", bot="a"
    )
    log(memory_root, "bot", "b", f"{day(1):%Y-%m}", f"- ({day(1)}) Tests passed", bot="b")
    assert bot_a.get("/health/memory").body["findings"] == []


def test_fixing_a_fact_it_cannot_change_is_404_and_changes_nothing(bot_a, memory_root):
    path = profile(memory_root, "bot", "b", f"- ({day(1)}) Tests passed", bot="b")
    before = path.read_bytes()
    from memstore.facts.markdown import fact_identity

    answer = bot_a.post(
        "/health/memory/fix", {"action": "archive", "id": fact_identity("Tests passed")}
    )
    assert (answer.status, answer.body["code"]) == (404, "not_found")
    assert before == path.read_bytes()
    assert bot_a.post("/health/memory/fix", {"action": "shred", "id": "0" * 16}).status == 422
