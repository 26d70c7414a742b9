"""The console's "Why here?" partial: the breakdown of one search result, and nothing about a
fact the person may not see."""

import pytest

from memstore.facts.markdown import fact_identity
from tests.helpers import HX

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def words_only(settings):
    settings.EMBEDDINGS = "none"


def test_why_here_breaks_a_result_down(ann, workspace):
    fact = fact_identity("Plans offsites and budgets for the Lisbon team")
    page = ann.get("/search/", {"q": "lisbon budgets"}).content.decode()
    assert f"/search/why/?q=lisbon+budgets&amp;id={fact}" in page
    why = ann.get("/search/why/", {"q": "lisbon budgets", "id": fact}, **HX)
    assert why.status_code == 200
    text = why.content.decode()
    assert "1st of the results" in text and "shares budget, lisbon" in text
    assert "<html" not in text  # a partial for htmx; the page without it
    assert "<html" in ann.get("/search/why/", {"q": "lisbon budgets", "id": fact}).content.decode()


def test_why_here_says_where_a_fact_fell_that_is_not_shown(ann, workspace):
    fact = fact_identity("Ben summarises papers")
    text = ann.get("/search/why/", {"q": "lisbon", "id": fact}, **HX).content.decode()
    assert "It shares no search word with the query." in text


def test_why_here_reveals_nothing_of_a_fact_the_person_may_not_see(ann, workspace):
    sams = fact_identity("Sam is vegetarian")
    text = ann.get("/search/why/", {"q": "vegetarian", "id": sams}, **HX).content.decode()
    assert "No fact this room may read has this id." in text
    assert "Sam" not in text and "vegetarian" not in text


def test_why_here_without_a_query_or_fact_says_what_is_missing(ann, workspace):
    answer = ann.get("/search/why/", {"q": " ", "id": "abc"}, **HX)
    assert answer.status_code == 422
    assert "Say which search (q) and which fact (id) to explain." in answer.content.decode()


def test_why_here_on_a_bot_page_explains_that_pages_order(ann, workspace):
    fact = fact_identity("Plans offsites and budgets for the Lisbon team")
    page = ann.get("/bots/ava/", {"q": "lisbon budgets"}, **HX).content.decode()
    link = f"/bots/ava/search/why/?q=lisbon+budgets&amp;id={fact}"
    assert link in page and "Why here?" in page
    text = ann.get("/bots/ava/search/why/", {"q": "lisbon budgets", "id": fact}, **HX)
    assert "1st of the results" in text.content.decode()
    full = ann.get("/bots/ava/search/why/", {"q": "lisbon budgets", "id": fact}).content.decode()
    assert "ava’s memory</a>" in full  # the page's way back is the bot's page, not /search/


def test_why_here_on_a_bot_page_keeps_the_scope_picked(ann, workspace):
    own = "scope=bot%3Aava"
    page = ann.get("/bots/ava/", {"q": "offsite", "scope": "bot:ava"}, **HX).content.decode()
    assert own in page
    fact = fact_identity("Launch goal is 500 beta sign-ups")
    every_tab = {"q": "launch", "id": fact}
    assert (
        "1st of the results" in ann.get("/bots/ava/search/why/", every_tab, **HX).content.decode()
    )
    text = ann.get("/bots/ava/search/why/", every_tab | {"scope": "bot:ava"}, **HX)
    assert (
        "No fact this room may read has this id." in text.content.decode()
    )  # not in the scope searched


def test_no_why_here_on_a_bot_page_when_a_filter_or_grouping_changes_the_list(ann, workspace):
    for narrowed in ({"tier": "profile"}, {"type": "decision"}, {"group": "type"}):
        page = ann.get("/bots/ava/", {"q": "offsite"} | narrowed, **HX).content.decode()
        assert "offsite" in page and "Why here?" not in page, narrowed
    assert "Why here?" in ann.get("/bots/ava/", {"q": "offsite"}, **HX).content.decode()


def test_bot_page_why_places_count_only_the_facts_that_page_shows(ann, workspace):
    """Another bot's shard of a person's memory is searched with the scope but not shown on
    this bot's page; the places "Why here?" gives are the places on the page."""
    import re

    from memoryconsole.web.presenters.why import ordinal
    from tests.helpers import day, write_memory

    write_memory(
        workspace,
        "users/ann/memory/by-agent/ben/profile.md",
        f"- ({day(2)}) Ann flies to Lisbon",
    )
    write_memory(
        workspace,
        "users/ann/memory/by-agent/ava/profile.md",
        f"- ({day(20)}) Ann wants reports to lead with decisions",
        f"- ({day(3)}) Ann likes the Lisbon trams at night",
    )
    page = ann.get("/bots/ava/", {"q": "lisbon"}, **HX).content.decode()
    assert "Ann flies to Lisbon" not in page  # ben's shard: not on ava's page
    links = re.findall(r'href="(/bots/ava/search/why/\?[^"]+)"', page)
    assert len(links) >= 2
    for place, link in enumerate(links, start=1):
        text = ann.get(link.replace("&amp;", "&"), **HX).content.decode()
        assert f"{ordinal(place)} of the results" in text, (place, link)
