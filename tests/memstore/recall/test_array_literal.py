"""A list written as one array literal reaches Postgres as exactly that list: any text (quotes,
backslashes, braces, commas, spaces, the word NULL, the empty string, non-ASCII) and any
64-bit integer, and `= ANY(...)` finds each element and nothing else."""

import pytest
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstore.recall.literals import array_literal

pytestmark = pytest.mark.django_db

TEXT = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=12)


def _select(sql: str, params: list):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(st.one_of(TEXT, st.sampled_from(["NULL", "null", "", " ", "{}", "a,b", '"', "\\"])))
)
def test_any_text_list_comes_back_as_it_was(values):
    assert _select("SELECT %s::text[]", [array_literal(values)]) == values


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.integers(min_value=-(2**63), max_value=2**63 - 1)))
def test_any_integer_list_comes_back_as_it_was(values):
    assert _select("SELECT %s::bigint[]", [array_literal(values)]) == values


def test_an_untyped_literal_takes_the_type_of_the_comparison():
    ids = ["0123456789abcdef", 'we"ird', "NULL"]
    sql = "SELECT array_agg(x ORDER BY x) FROM unnest(%s::text[]) x WHERE x = ANY(%s)"
    assert _select(sql, [["NULL", "other", 'we"ird'], array_literal(ids)]) == ["NULL", 'we"ird']
    assert _select("SELECT 7::bigint = ANY(%s)", [array_literal([5, 7])]) is True
    assert _select("SELECT 8::bigint = ANY(%s)", [array_literal([5, 7])]) is False
