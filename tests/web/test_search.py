"""The console's search: recall across every tab of a bot and across bots, typos corrected,
matches marked, privacy kept (full pages and the partials htmx asks for)."""

import pytest

from memstore.console.spelling import distance, query_corrected
from memstore.facts.paths import Scope
from memstore.recall import partial
from tests.helpers import HX, day, marked, meaning_ready, texts, write_memory

pytestmark = pytest.mark.django_db


def test_search_covers_every_tab_labelled_by_scope(boss, workspace):
    response = boss.get("/bots/ava/?tab=own&q=vegetarian", **HX)
    assert texts(response) == ["Sam is vegetarian"]
    html = response.content.decode()
    assert "about sam" in html and "across all tabs: About people 1" in html


def test_search_keeps_user_memory_private(ann, workspace):
    assert "Sam is vegetarian" not in texts(ann.get("/bots/ava/?q=vegetarian", **HX))
    assert texts(ann.get("/bots/ava/?q=reports decisions", **HX))[:1] == [
        "Ann wants reports to lead with decisions"
    ]


def test_search_finds_stems_and_marks_them(ann, workspace):
    response = ann.get("/bots/ava/?q=memory", **HX)
    assert (texts(response), marked(response)) == (["Old memories of 2020"], ["memories"])


def test_typo_is_corrected_with_a_way_back(ann, workspace):
    response = ann.get("/bots/ava/?q=budjet", **HX)
    assert texts(response) == ["Plans offsites and budgets for the Lisbon team"]
    html = response.content.decode()
    assert "Showing matches for “budget”." in html and "exact=1" in html
    assert texts(ann.get("/bots/ava/?q=lisbn", **HX)) == [
        "Plans offsites and budgets for the Lisbon team"
    ]
    assert "Showing matches" not in ann.get("/bots/ava/?q=budjet&exact=1", **HX).content.decode()


def test_search_by_meaning(ann, workspace, memory_root):
    write_memory(
        memory_root,
        "agents/ava/memory/profile.md",
        f"- ({day(3)}) Booked a flight to Lisbon for the March offsite",
        f"- ({day(4)}) The office coffee machine is broken",
    )
    # Before the worker has made their vectors, facts are found by their words, and it says so.
    first = ann.get("/bots/ava/?q=flight tickets", **HX)
    assert texts(first)[:1] == ["Booked a flight to Lisbon for the March offsite"]
    assert "Preparing search by meaning: " in first.content.decode()
    meaning_ready()
    response = ann.get("/bots/ava/?q=plane ticket", **HX)
    assert texts(response)[:1] == ["Booked a flight to Lisbon for the March offsite"]
    assert "Preparing search by meaning" not in response.content.decode()


def test_literal_fallback_says_so(ann, workspace, settings):
    settings.EMBEDDINGS = "none"  # meaning finds something for nearly anything
    response = ann.get("/bots/ava/?q=ooftop&exact=1", **HX)
    assert texts(response) == ["Booked the rooftop venue for the offsite"]
    assert marked(response) == ["ooftop"]
    assert "contains “ooftop” as typed" in response.content.decode()


def test_literal_fallback_counts_to_a_cap_and_says_more(
    ann, workspace, settings, memory_root, monkeypatch
):
    settings.EMBEDDINGS = "none"
    write_memory(
        memory_root,
        "agents/ava/memory/log/2019-06.md",
        *(f"- (2019-06-{1 + i % 28:02d}) Parasol {i} for the terrace" for i in range(300)),
    )
    html = ann.get("/bots/ava/?q=rasol&exact=1", **HX).content.decode()
    assert "50 best of 300 facts contain “rasol” as typed" in html
    monkeypatch.setattr(partial, "COUNT_CAP", 250)  # counting stops there: "250+"
    html = ann.get("/bots/ava/?q=rasol&exact=1", **HX).content.decode()
    assert "50 best of 250+ facts contain “rasol” as typed" in html


def test_marks_are_escaped(ann, workspace):
    html = ann.get("/bots/ava/?q=script", **HX).content.decode()
    assert "<script>alert" not in html
    assert "&lt;<mark>script</mark>&gt;" in html


def test_filters_narrow_a_search(ann, workspace):
    assert texts(ann.get("/bots/ava/?q=offsite&type=decision", **HX)) == [
        "Booked the rooftop venue for the offsite"
    ]


def test_full_page_search(ann, workspace):
    html = ann.get("/bots/ava/?q=rooftop").content.decode()
    assert html.startswith("<!doctype html>") and "<mark>rooftop</mark>" in html


def test_workspace_search_spans_bots_and_keeps_privacy(ann, boss, client, people, workspace):
    client.force_login(people["boss"])
    response = client.get("/search/?q=vegetarian papers", **HX)
    assert {"Ben summarises papers", "Sam is vegetarian"} <= set(texts(response))
    html = response.content.decode()
    assert "ava · about sam" in html and 'href="/bots/ben/?q=' in html
    client.force_login(people["ann"])
    found = texts(client.get("/search/?q=vegetarian papers", **HX))
    assert "Ben summarises papers" in found and "Sam is vegetarian" not in found
    page = client.get("/search/").content.decode()
    assert page.startswith("<!doctype html>") and "your own" in page


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [("budjet", "budget", 1), ("lisbn", "lisbon", 1), ("lisbno", "lisbon", 1), ("ab", "ba", 1)],
)
def test_distance(a, b, expected):
    assert distance(a, b) == expected


def test_correction_leaves_known_words_and_prefixes(workspace):
    from memstore.index import index_sync

    scopes = [Scope("bot", "ava")]
    index_sync(scopes=scopes)
    assert query_corrected("rooftop", scopes) == ""
    assert query_corrected("roof", scopes) == ""  # still typing
    assert query_corrected("Rooftpo venue", scopes) == "rooftop venue"
    assert query_corrected("zzzzzz", scopes) == ""
