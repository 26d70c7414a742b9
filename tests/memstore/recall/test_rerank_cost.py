"""The reranker fits the machine (issue 34): recall sends only as many pairs as the measured
cost per pair in this process fits in the time there is, learns that cost from every run, and
says when it reranked fewer than asked or none at all, and why.

The clock is the test's: a stand-in local reranker moves it forward by a set cost per pair, so
nothing here depends on the machine's speed."""

import types

import pytest

from memstore.recall import rerank, rerank_cost
from memstore.recall.rerank_cost import pair_cost_forget, pair_cost_observe, pair_ms
from memstore.recall.rerankers import RerankFailed, Scored
from memstore.recall.search import recall_search
from memstore.rooms.access import Context, Room
from tests.helpers import log

pytestmark = pytest.mark.django_db
ADA = Context(bot="ada", room=Room("r1", "routine"))
FACTS = [f"- (2026-11-{day:02d}) Coffee note number {day}" for day in range(1, 13)]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


class TimedReranker:
    """A local reranker (runs here) whose every pair takes `pair_ms` on the test's clock; it
    prefers later notes (higher numbers)."""

    name = "timed-stand-in"
    remote = False

    def __init__(self, clock: Clock, pair_ms: float) -> None:
        self.clock, self.pair_ms = clock, pair_ms
        self.sent: list[list[str]] = []

    def score(self, query: str, texts: list[str], *, deadline: float) -> Scored:
        self.sent.append(texts)
        self.clock.now += self.pair_ms * len(texts) / 1000
        return Scored([float(text.rsplit(" ", 1)[1]) for text in texts])


@pytest.fixture
def timed(memory_root, settings, monkeypatch):
    settings.EMBEDDINGS = "none"  # words only: ten matches, in the fusion's plain order
    settings.RECALL_RERANK_TOP_N = 10
    settings.RECALL_RERANK_TIMEOUT_MS = 400
    log(memory_root, "bot", "ada", "2026-11", *FACTS)
    clock = Clock()
    monkeypatch.setattr(rerank, "time", types.SimpleNamespace(monotonic=clock.monotonic))
    pair_cost_forget()

    def reranker(pair_ms: float) -> TimedReranker:
        stand_in = TimedReranker(clock, pair_ms)
        monkeypatch.setattr("memstore.recall.search.rerank_wanted", lambda asked: stand_in)
        return stand_in

    yield reranker
    pair_cost_forget()


def test_it_reranks_as_many_pairs_as_the_measured_cost_fits(timed):
    stand_in = timed(pair_ms=50)
    pair_cost_observe(stand_in.name, pairs=4, millis=200)  # measured before: 50 ms a pair
    result = recall_search(ctx=ADA, query="coffee note")
    assert [len(texts) for texts in stand_in.sent] == [6]  # 400 ms x 0.8 margin / 50 ms
    assert result.reranked
    assert result.note.endswith(
        "Reranked the first 6 of 10: at about 50 ms a pair here, 6 fit in the 400 ms there was."
    )


def test_it_says_why_when_not_even_two_pairs_fit(timed):
    stand_in = timed(pair_ms=500)
    pair_cost_observe(stand_in.name, pairs=1, millis=500)
    result = recall_search(ctx=ADA, query="coffee note")
    assert (stand_in.sent, result.reranked) == ([], False)
    assert result.note.endswith(
        "Not reranked: at about 500 ms a pair here, not even two fit in the 400 ms there was; "
        "in the order of words and meaning."
    )


def test_a_slow_machine_is_learnt_after_one_call(timed):
    stand_in = timed(pair_ms=100)  # the prior guesses 8 ms a pair: ten are tried, too slowly
    first = recall_search(ctx=ADA, query="coffee note")
    assert (len(stand_in.sent[0]), first.reranked) == (10, False)
    assert "did not answer in time" in first.note
    assert pair_ms(stand_in.name) == pytest.approx(100)
    second = recall_search(ctx=ADA, query="coffee note")
    assert (len(stand_in.sent[1]), second.reranked) == (3, True)
    assert "Reranked the first 3 of 10" in second.note


def test_the_estimate_follows_the_load():
    pair_cost_forget()
    assert pair_ms("m") == rerank_cost.PRIOR_MS_PER_PAIR
    assert pair_cost_observe("m", pairs=10, millis=100) == pytest.approx(10)
    assert pair_cost_observe("m", pairs=10, millis=1100) == pytest.approx(10 + 0.3 * 100)  # 40
    assert rerank_cost.pairs_within("m", 400, most=10) == 8  # 400 x 0.8 / 40
    assert rerank_cost.pairs_within("m", 50, most=10) == 0
    pair_cost_forget()


class CutShortReranker(TimedReranker):
    """Like the bundled model: stops at the deadline, handing back the pairs it scored."""

    def score(self, query: str, texts: list[str], *, deadline: float) -> Scored:
        self.sent.append(texts)
        scores = []
        for text in texts:
            if self.clock.monotonic() > deadline:
                raise RerankFailed("out of time", scores=scores)
            self.clock.now += self.pair_ms / 1000
            scores.append(float(text.rsplit(" ", 1)[1]))
        return Scored(scores)


def test_pairs_scored_before_the_deadline_are_still_used(timed, monkeypatch):
    stand_in = CutShortReranker(timed(pair_ms=1).clock, pair_ms=90)  # the prior says 8 ms
    monkeypatch.setattr("memstore.recall.search.rerank_wanted", lambda asked: stand_in)
    result = recall_search(ctx=ADA, query="coffee note")
    assert result.reranked and result.reranking.pairs == 5  # 5 x 90 ms passes 400 ms
    assert "Reranked the first 5 of 10: time ran out." in result.note
