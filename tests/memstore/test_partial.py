"""Recall's last resort on partial words (memstore/recall/partial.py): a word being typed is
found through the index by its start, the text inside a word still by the scan, and any typed
text makes a valid prefix query."""

import pytest
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstore.facts.paths import Scope
from memstore.recall import partial, recall_in_scopes
from tests.helpers import log

pytestmark = pytest.mark.django_db

ADA = Scope("bot", "ada")
FACTS = [
    "- (2026-11-01) Flight to Lisbon on Friday",
    "- (2026-11-02) Budget review with finance",
    "- (2026-11-03) Lisbon hotel near the river",
    "- (2026-11-04) Prefers window seats",
]


@pytest.fixture
def memory(memory_root):
    log(memory_root, "bot", "ada", "2026-11", *FACTS)
    return memory_root


def found(query: str) -> list[str]:
    result = recall_in_scopes(scopes=[ADA], query=query, mode="lexical", include_hidden=True)
    return [f.text for f in result.items]


def test_a_partial_word_finds_the_facts_with_a_word_starting_so(memory):
    assert found("lisb") == ["Lisbon hotel near the river", "Flight to Lisbon on Friday"]
    assert found("LISBO") == ["Lisbon hotel near the river", "Flight to Lisbon on Friday"]
    assert found("budg rev") == []  # the words as typed, together: no fact holds "budg rev"
    assert found("budget rev") == ["Budget review with finance"]


def test_text_inside_a_word_is_still_found_by_the_scan(memory):
    assert found("isbo") == ["Lisbon hotel near the river", "Flight to Lisbon on Friday"]
    assert found("xq") == []


def test_without_the_trigram_index_the_prefix_path_is_used(memory):
    if partial.trigram_ready():
        pytest.skip("this database has pg_trgm's index: the ILIKE statement is indexed")
    found("lisb")  # indexes the file
    rows = partial.containing(scopes=[ADA], query="lisb")
    assert "to_tsquery" in str(rows.query)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=40))
def test_any_typed_text_makes_a_valid_prefix_query(text):
    prefixes = partial.prefix_query(text)
    if prefixes:
        with connection.cursor() as cursor:  # a syntax error would raise here
            cursor.execute("SELECT to_tsquery('english', %s)::text", [prefixes])
            cursor.fetchone()


SPECIAL = [
    "- (2026-11-05) 50% off with code A_B",
    "- (2026-11-06) Path C:\\temp\\x",
    "- (2026-11-07) 5000 off",
]


@pytest.fixture
def special(memory_root):
    log(memory_root, "bot", "ada", "2026-11", *FACTS, *SPECIAL)
    found("warm")  # indexes the file
    return [line.split(") ", 1)[1] for line in FACTS + SPECIAL]


# the fixture's files and rows are read-only here, so sharing them across examples is fine
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(alphabet="0%5_\\ABoflt :", min_size=1, max_size=4))
def test_like_wildcards_typed_are_matched_as_written(special, query):
    got = {f.text for f in partial.containing(scopes=[ADA], query=query)}
    holding = {t for t in special if query.lower() in t.lower()}
    # every fact given holds the text as typed (% _ \ literal), and some are given if any
    # holds it (those with a word starting so, when there are such: see the module doc)
    assert got <= holding and bool(got) == bool(holding)
