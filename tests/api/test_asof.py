"""GET /facts?as_of= and GET /prompt?as_of=: what the bot knew at the end of a day, from a
scripted sequence of API saves, an edit, a forget and a hand edit."""

from datetime import UTC, datetime

import pytest

from memstore.facts.paths import Scope
from memstore.index import index_sync
from tests.helpers import HistoryClock


def _day(n: int) -> datetime:
    return datetime(2026, 11, n, 9, 30, tzinfo=UTC)


@pytest.fixture
def scripted(bot_a, memory_root, monkeypatch):
    clock = HistoryClock(monkeypatch, _day(1))
    tea = bot_a.post("/facts", {"text": "Likes tea"}).body
    friday = bot_a.post("/facts", {"text": "Deploys on Friday"}).body
    clock.at(_day(2))
    bot_a.patch(f"/facts/{friday['id']}", {"text": "Deploys on Monday"})
    clock.at(_day(3))
    bot_a.delete(f"/facts/{tea['id']}")
    clock.at(_day(4))
    with (memory_root / friday["file"]).open("a") as handle:
        handle.write("- (2026-11-04) Added by hand\n")
    index_sync(scopes=[Scope("bot", "a")])
    return bot_a


@pytest.mark.parametrize(
    ("as_of", "texts"),
    [
        ("2026-10-31", []),
        ("2026-11-01", ["Deploys on Friday", "Likes tea"]),
        ("2026-11-02", ["Deploys on Monday", "Likes tea"]),
        ("2026-11-03", ["Deploys on Monday"]),
        ("2026-11-04", ["Added by hand", "Deploys on Monday"]),
    ],
)
def test_facts_as_of_each_day(scripted, as_of, texts):
    answer = scripted.get("/facts", as_of=as_of)
    assert answer.status == 200
    assert sorted(f["text"] for f in answer.body["items"]) == texts
    assert answer.body["total"] == len(texts)


def test_prompt_as_of_a_day_and_a_bad_date(scripted):
    text = scripted.get("/prompt", as_of="2026-11-01").body["text"]
    assert "Deploys on Friday" in text and "Likes tea" in text and "Monday" not in text
    assert scripted.get("/prompt", as_of="2026-11-31").status == 422
    assert scripted.get("/facts", as_of="yesterday").status == 422
