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


def test_a_large_stores_health_comes_from_the_worker_at_once(bot_a, memory_root, settings):
    """Past HEALTH_INLINE_FACTS, a bot's health call never makes the report in the request: it
    answers the last finished one narrowed to this room's shards (or says it is being made)."""
    from memstore.upkeep.health_snapshots import health_job, health_key

    settings.HEALTH_INLINE_FACTS = 1
    lines = [f"- ({day(1)}) Build succeeded", f"- ({day(1)}) Prefers tea"]
    profile(memory_root, "bot", "a", *lines, bot="a")
    first = bot_a.get("/health/memory")
    assert first.status == 200 and first.body["preparing"] and first.body["findings"] == []
    health_job(key=health_key("a"))  # what the worker does
    answer = bot_a.get("/health/memory").body
    assert not answer["preparing"] and not answer["outdated"] and answer["made_at"]
    assert [f["fact"]["text"] for f in answer["findings"]] == ["Build succeeded"]
