"""`manage.py recall explain`: the breakdown from the shell, for a hit and an expected miss."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from memstore.registry.bots import bot_create
from tests.helpers import log

pytestmark = pytest.mark.django_db


@pytest.fixture
def memory(memory_root, settings):
    settings.EMBEDDINGS = "none"
    bot_create(slug="ada")
    log(
        memory_root,
        "bot",
        "ada",
        "2026-11",
        "- (2026-11-01) Booked a flight to Lisbon for the offsite",
        "- (2026-11-02) Prefers tea over coffee",
        "- (2026-11-03) Owns a golden retriever called Biscuit",
    )
    log(memory_root, "bot", "ben", "2026-11", "- (2026-11-01) Ben's Lisbon notes", bot="ben")


def explain(*args) -> str:
    out = StringIO()
    call_command("recall", "explain", *args, stdout=out)
    return out.getvalue()


def test_explain_prints_each_result_and_the_floors(memory):
    text = explain("ada", "flight to Lisbon")
    assert "terms: flight, lisbon" in text
    assert "floors: cosine none (no meaning searched)" in text
    assert " 1. Booked a flight to Lisbon for the offsite" in text
    assert "on flight, lisbon; cosine —; fusion" in text
    assert "Ben's" not in text


def test_explain_says_where_an_expected_fact_fell_and_hides_another_bots(memory):
    text = explain(
        "ada", "flight to Lisbon", "--expect", "golden retriever", "--expect", "Ben's Lisbon notes"
    )
    assert "expected 'golden retriever': not shown. It shares no search word" in text
    assert (
        'expected "Ben\'s Lisbon notes": not shown. No fact this room may read holds this text.'
        in text
    )


def test_explain_refuses_a_direct_room_without_a_person(memory):
    with pytest.raises(CommandError, match="A direct room needs the person"):
        explain("ada", "tea", "--room-kind", "direct")
