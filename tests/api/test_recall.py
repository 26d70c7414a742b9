"""Recall over the API: what a bot gets back for a query."""

import pytest

from tests.helpers import log


@pytest.mark.parametrize("query", [" ", "   ", "\t", " \n "])
def test_a_blank_query_is_refused_with_a_clear_message(memory_root, bot_a, query):
    answer = bot_a.get("/recall", query=query)
    assert answer.status == 422
    assert answer.body["code"] == "invalid_request"
    assert answer.body["message"] == (
        "The request is not valid: query.query: must not be blank: send words or a question"
    )


def test_a_partial_word_finds_the_facts_containing_it(memory_root, bot_a, settings):
    """The API's last resort is the console's: the text as typed, newest first, never another
    bot's memory nor a hidden fact, and the count of the rest."""
    settings.EMBEDDINGS = "none"  # by words only: "isbo" is no word
    log(
        memory_root,
        "bot",
        "a",
        "2026-11",
        "- (2026-11-01) Flight to Lisbon on Friday",
        "- (2026-11-03) Lisbon hotel near the river",
        "- (2026-11-04) The Lisbon rooftop bar <!-- visibility=hidden -->",
        "- (2026-11-05) Prefers window seats",
        bot="a",
    )
    log(memory_root, "bot", "b", "2026-11", "- (2026-11-06) Lisbon plans of bot b", bot="b")
    answer = bot_a.get("/recall", query="isbo", limit=1)
    assert answer.status == 200
    assert [item["text"] for item in answer.body["items"]] == ["Lisbon hotel near the river"]
    assert answer.body["more"] == 1
    assert "contain the query as written" in answer.body["note"]


@pytest.fixture
def over_the_cap(memory_root, settings):
    """1,100 facts holding "qxj" inside a longer word: no word matches it, the literal
    fallback does, and its count stops at 1,000."""
    settings.EMBEDDINGS = "none"
    lines = [f"- (2026-11-01) Ticket {i:04d} filed under zqxjw{i}" for i in range(1100)]
    log(memory_root, "bot", "a", "2026-11", *lines)
    return memory_root


def test_more_says_when_it_is_a_lower_bound(over_the_cap, bot_a):
    answer = bot_a.get("/recall", query="qxj", limit=5).body
    assert (len(answer["items"]), answer["more"], answer["more_capped"]) == (5, 995, True)
    few = bot_a.get("/recall", query="Ticket 0007").body
    assert few["more_capped"] is False


def test_the_memory_command_prints_a_lower_bound_with_a_plus(over_the_cap, tokens):
    from tests.helpers import run_command

    found = run_command("memory", "search", "a", "qxj", "--limit", "5")
    assert found.splitlines()[-1] == "995+ more"
