"""Recall over the API: what a bot gets back for a query."""

import pytest


@pytest.mark.parametrize("query", [" ", "   ", "\t", " \n "])
def test_a_blank_query_is_refused_with_a_clear_message(memory_root, bot_a, query):
    answer = bot_a.get("/recall", query=query)
    assert answer.status == 422
    assert answer.body["code"] == "invalid_request"
    assert answer.body["message"] == (
        "The request is not valid: query.query: must not be blank: send words or a question"
    )
