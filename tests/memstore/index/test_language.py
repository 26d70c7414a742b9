"""The word index in the workspace's language (issue 23 part 4): SEARCH_LANGUAGE switches the
configuration `Fact.search` is made with and queries are read with, French and German stems
find each other's forms, accents fold where the language (or unaccent) folds them, short
tokens are kept, and a setting the database does not know is refused naming the ones it has."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memstore.index.language import (
    language_cache_clear,
    language_in_use,
    language_switch,
    language_wanted,
    unaccent_available,
)
from memstore.recall import recall_search
from memstore.recall.snapshot import snapshots_clear
from memstore.rooms.access import Context, Room
from tests.helpers import log

pytestmark = pytest.mark.django_db


def _ctx() -> Context:
    return Context(bot="ada", room=Room("room-1", "routine"))


@pytest.fixture
def in_language(settings, memory_root):
    """Switch the word index to a language for one test (the DDL is rolled back with the test's
    transaction; the per-process caches are dropped either side)."""
    settings.EMBEDDINGS = "none"  # words only: what is measured is the word index

    def switch(name: str) -> None:
        settings.SEARCH_LANGUAGE = name
        language_switch(language_wanted())
        snapshots_clear()

    yield switch
    language_cache_clear()
    snapshots_clear()


def _found(query: str) -> list[str]:
    result = recall_search(ctx=_ctx(), query=query)
    return [] if result.literal else [f.text for f in result.items]


FRENCH = [
    "- (2026-11-01) Elle a acheté trois chevaux pour la ferme",
    "- (2026-11-02) Boit son café sans sucre le matin",
    "- (2026-11-03) Travaille sur l'IA générative chez Mistral",
    "- (2026-11-04) Les réunions d'équipe ont lieu le mardi",
]


def test_french_stems_accents_and_short_tokens(in_language, memory_root):
    log(memory_root, "bot", "ada", "2026-11", *FRENCH)
    in_language("french")
    assert language_in_use() == ("memstore_french_unaccent" if unaccent_available() else "french")
    assert _found("cheval") == ["Elle a acheté trois chevaux pour la ferme"]
    assert _found("cafe") == ["Boit son café sans sucre le matin"]  # the stemmer folds it
    assert _found("cafés") == ["Boit son café sans sucre le matin"]
    assert _found("IA") == ["Travaille sur l'IA générative chez Mistral"]
    assert _found("réunion") == ["Les réunions d'équipe ont lieu le mardi"]


def test_in_english_the_same_facts_miss_the_french_forms(in_language, memory_root):
    log(memory_root, "bot", "ada", "2026-11", *FRENCH)
    in_language("english")  # the default: nothing to switch
    assert language_in_use() == ("memstore_english_unaccent" if unaccent_available() else "english")
    assert _found("cheval") == []


GERMAN = [
    "- (2026-11-01) Besitzt zwei Häuser in Hamburg",
    "- (2026-11-02) Liest jeden Abend Bücher über Geschichte",
    "- (2026-11-03) Wohnt in der Straße am Hafen",
]


def test_german_stems_umlauts_and_eszett(in_language, memory_root):
    log(memory_root, "bot", "ada", "2026-11", *GERMAN)
    in_language("german")
    assert _found("Haus") == ["Besitzt zwei Häuser in Hamburg"]
    assert _found("Buch") == ["Liest jeden Abend Bücher über Geschichte"]
    assert _found("Strasse") == ["Wohnt in der Straße am Hafen"]


def test_with_unaccent_simple_finds_cafe_by_cafe(in_language, memory_root):
    if not unaccent_available():
        pytest.skip("the unaccent extension is not installed in this Postgres")
    log(memory_root, "bot", "ada", "2026-11", "- (2026-11-02) Meets at the Café Nero")
    in_language("simple")
    assert _found("cafe") == ["Meets at the Café Nero"]


def test_without_unaccent_simple_keeps_accents_apart(in_language, memory_root):
    if unaccent_available():
        pytest.skip("unaccent is installed here: this is the case without it")
    log(memory_root, "bot", "ada", "2026-11", "- (2026-11-02) Meets at the Café Nero")
    in_language("simple")
    assert language_in_use() == "simple"
    assert _found("café") == ["Meets at the Café Nero"]
    assert _found("cafe") == []


def test_migrate_puts_the_index_in_the_settings_language_with_accents_folded(memory_root):
    # The test database was made by `migrate`: SEARCH_LANGUAGE (english) applied, unaccent on
    # where the server has it, so "cafe" finds "Café" with no command and no restart.
    wanted = language_wanted()
    assert language_in_use() == wanted.wanted
    if wanted.unaccent:
        log(memory_root, "bot", "ada", "2026-11", "- (2026-11-02) Meets at the Café Nero")
        snapshots_clear()
        assert _found("cafe") == ["Meets at the Café Nero"]


def test_the_command_says_what_it_would_do_then_does_it(in_language, settings, memory_root):
    log(memory_root, "bot", "ada", "2026-11", *GERMAN)
    settings.SEARCH_LANGUAGE = "german"
    out = io.StringIO()
    call_command("search_language", stdout=out)
    assert "asks for german but the word index uses english" in out.getvalue().replace(
        "memstore_german_unaccent", "german"
    ).replace("memstore_english_unaccent", "english")
    assert _found("Haus") == []  # nothing changed until --apply
    call_command("search_language", "--apply", stdout=out, stderr=io.StringIO())
    snapshots_clear()
    assert "now uses" in out.getvalue()
    assert _found("Haus") == ["Besitzt zwei Häuser in Hamburg"]


@pytest.mark.parametrize("name", ["klingon", "Robert'); DROP TABLE x;--"])
def test_an_unknown_language_is_refused_naming_the_ones_there_are(settings, name):
    before = language_in_use()
    settings.SEARCH_LANGUAGE = name
    with pytest.raises(CommandError, match="SEARCH_LANGUAGE=") as refused:
        call_command("search_language", "--apply")
    if name == "klingon":
        assert "french" in str(refused.value) and "german" in str(refused.value)
    assert language_in_use() == before  # the index is left as it was
