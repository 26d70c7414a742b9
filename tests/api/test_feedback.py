"""Feedback on a fact through the API: `wrong` and `do-not-use` take it out of the very next
prompt and recall and put it in review; `useful` writes `checked=` on the line and the fact
ranks a little higher; `outdated` marks it for a person. The file is the truth throughout."""

import pytest
from django.utils import timezone

from memstore.registry.bots import project_join
from tests.helpers import BotClient, log


@pytest.fixture(autouse=True)
def words_only(settings):
    settings.EMBEDDINGS = "none"


def _marks(meta: dict) -> dict:
    """The line's keys feedback sets (who saved it, `by=`/`via=`, is not feedback's)."""
    return {k: v for k, v in meta.items() if k not in ("by", "via", "for")}


def _today() -> str:
    return timezone.localdate().isoformat()


def test_wrong_takes_a_fact_out_of_the_next_prompt_and_recall(bot_a, memory_root):
    saved = bot_a.post("/facts", {"text": "The office is in Lisbon", "scope": "bot"}).body
    assert "office is in Lisbon" in bot_a.get("/prompt").body["text"]
    answer = bot_a.post(f"/facts/{saved['id']}/feedback", {"verb": "wrong"})
    assert answer.status == 200
    assert (answer.body["verb"], answer.body["copies"]) == ("wrong", 1)
    assert _marks(answer.body["fact"]["meta"]) == {"mark": "wrong", "review": _today()}
    assert answer.body["fact"]["expired"] is True
    line = next(memory_root.glob("agents/a/memory/log/*.md")).read_text()
    assert f"The office is in Lisbon <!-- by=a via=api mark=wrong review={_today()} -->" in line
    assert "office is in Lisbon" not in bot_a.get("/prompt").body["text"]
    assert bot_a.get("/recall", query="office Lisbon").body["items"] == []
    listed = bot_a.get("/facts").body["items"]
    assert [(f["text"], f["expired"]) for f in listed] == [("The office is in Lisbon", True)]


def test_do_not_use_on_another_bots_project_fact_leaves_both_prompts(tokens, memory_root):
    b = BotClient(token=tokens["b"], projects="apollo")
    a = BotClient(token=tokens["a"], projects="apollo")
    fact = b.post(
        "/facts", {"text": "Launch is on 3 March", "scope": "project", "project": "apollo"}
    ).body
    assert "Launch is on 3 March" in a.get("/prompt").body["text"]
    marked = a.post(f"/facts/{fact['id']}/feedback", {"verb": "do-not-use"})
    assert marked.status == 200 and marked.body["fact"]["bot"] == "b"
    assert "Launch is on 3 March" not in a.get("/prompt").body["text"]
    assert "Launch is on 3 March" not in b.get("/prompt").body["text"]
    shard = memory_root / "projects/apollo/memory/by-agent/b"
    assert "mark=do-not-use" in "".join(p.read_text() for p in shard.rglob("*.md"))


def test_useful_writes_checked_and_ranks_the_fact_a_little_higher(bot_a, memory_root):
    log(
        memory_root,
        "bot",
        "a",
        "2026-01",
        "- (2026-01-05) Standup is at nine",
        "- (2026-01-05) Retro is on Fridays",
        bot="a",
    )
    section = bot_a.get("/prompt").body["text"]
    assert section.index("Retro is on Fridays") < section.index("Standup is at nine")
    standup = next(f for f in bot_a.get("/facts").body["items"] if f["text"].startswith("Standup"))
    useful = bot_a.post(f"/facts/{standup['id']}/feedback", {"verb": "useful"})
    assert _marks(useful.body["fact"]["meta"]) == {"checked": _today()}
    section = bot_a.get("/prompt").body["text"]
    assert section.index("Standup is at nine") < section.index("Retro is on Fridays")
    # A recall is a passive read: it verifies nothing.
    bot_a.get("/recall", query="retro")
    assert (
        "checked="
        not in (memory_root / "agents/a/memory/log/2026-01.md").read_text().split("Retro")[1]
    )


def test_outdated_goes_to_health_and_useful_clears_it(bot_a):
    fact = bot_a.post("/facts", {"text": "Uses Jenkins for builds", "scope": "bot"}).body
    out = bot_a.post(f"/facts/{fact['id']}/feedback", {"verb": "outdated"}).body
    assert _marks(out["fact"]["meta"]) == {"mark": "outdated", "review": _today()}
    assert out["fact"]["expired"] is False  # still used until a person looks
    report = bot_a.get("/health/memory").body
    assert [(f["kind"], f["why"], f["fact"]["text"]) for f in report["findings"]] == [
        (
            "marked",
            "marked outdated: still used; a person should check it",
            "Uses Jenkins for builds",
        )
    ]
    again = bot_a.post(f"/facts/{fact['id']}/feedback", {"verb": "useful"}).body
    assert _marks(again["fact"]["meta"]) == {"review": _today(), "checked": _today()}
    kinds = [f["kind"] for f in bot_a.get("/health/memory").body["findings"]]
    assert "marked" not in kinds


def test_useful_never_lifts_a_wrong_mark(bot_a):
    fact = bot_a.post("/facts", {"text": "Budget is 40k", "scope": "bot"}).body
    bot_a.post(f"/facts/{fact['id']}/feedback", {"verb": "wrong"})
    again = bot_a.post(f"/facts/{fact['id']}/feedback", {"verb": "useful"}).body
    assert again["fact"]["meta"]["mark"] == "wrong" and "checked" not in again["fact"]["meta"]


def test_bad_feedback_is_refused_clearly(bot_a):
    unknown = bot_a.post("/facts/0123456789abcdef/feedback", {"verb": "wrong"})
    assert (unknown.status, unknown.body["code"]) == (404, "not_found")
    fact = bot_a.post("/facts", {"text": "Likes tea", "scope": "bot"}).body
    bad = bot_a.post(f"/facts/{fact['id']}/feedback", {"verb": "meh"})
    assert bad.status == 422
    assert "useful" in bad.body["message"] and "do-not-use" in bad.body["message"]


def test_feedback_needs_write_access_and_sees_only_what_the_room_reads(tokens, memory_root):
    b = BotClient(token=tokens["b"], projects="apollo")
    fact = b.post(
        "/facts", {"text": "Launch is on 3 March", "scope": "project", "project": "apollo"}
    ).body
    project_join(bot="a", project="apollo", access="read")
    a = BotClient(token=tokens["a"], projects="apollo")
    refused = a.post(f"/facts/{fact['id']}/feedback", {"verb": "wrong"})
    assert (refused.status, refused.body["code"]) == (403, "missing_grant")
    assert refused.body["detail"]["project"] == "apollo"
    # Without the project in play, the room does not read it: not found, nothing marked.
    outside = BotClient(token=tokens["b"])
    assert outside.post(f"/facts/{fact['id']}/feedback", {"verb": "wrong"}).status == 404
    hidden = b.post("/facts", {"text": "Door code rotates", "visibility": "hidden"}).body
    assert b.post(f"/facts/{hidden['id']}/feedback", {"verb": "wrong"}).status == 404
    text = "".join(p.read_text() for p in memory_root.rglob("*.md"))
    assert "mark=" not in text
