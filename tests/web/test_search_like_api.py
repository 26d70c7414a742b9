"""The console searches the way the API does (issue 23 part 5), over the demo workspace: the
query as typed is searched first with the bots' recall and its floor; a typo fix only steps in
when the words as typed find nothing, and is otherwise offered beside the results; About me,
the bot page and /search/ find what the API's recall finds for the same person."""

import pytest
from django.contrib.auth.models import User

from memstore.management.demo import demo_workspace
from memstore.registry.tokens import token_create
from tests.helpers import HX, BotClient, meaning_ready, texts

pytestmark = pytest.mark.django_db
WINDOW = "Always books a window seat and flies economy on short trips"
VEGETARIAN = "Sam is vegetarian; book restaurants with good vegetarian options"


@pytest.fixture
def demo(client, memory_root):
    demo_workspace(say=lambda _: None)
    meaning_ready()  # the worker has made every vector
    client.force_login(User.objects.get(username="sam"))
    return client


def _api_about_sam(query: str) -> list[str]:
    """What ava's recall finds in sam's user memory, in sam's direct room."""
    bot = BotClient(token=token_create(bot="ava", name="t").token, room_id="dm-sam", person="sam")
    answer = bot.get("/recall", query=query)
    assert answer.status == 200, answer.body
    return [f["text"] for f in answer.body["items"] if f["scope"] == "user"]


def test_plane_ticket_is_searched_as_typed_and_finds_the_window_seat(demo):
    for url in ("/search/", "/bots/ava/"):
        response = demo.get(url, {"q": "plane ticket"}, **HX)
        html = response.content.decode()
        assert WINDOW in texts(response), url
        assert "Showing matches for" not in html  # the words as typed were searched
        assert "“plane ticket”" in html
        assert not texts(response)[0].startswith("Q3 planning")


def test_a_typo_that_finds_nothing_as_typed_is_corrected_with_a_way_back(demo, settings):
    settings.EMBEDDINGS = "none"  # by words only, "vegetarain" finds nothing as typed
    response = demo.get("/search/", {"q": "vegetarain"}, **HX)
    html = response.content.decode()
    assert "Showing matches for “vegetarian”." in html and "exact=1" in html
    assert VEGETARIAN in texts(response)
    as_typed = demo.get("/search/", {"q": "vegetarain", "exact": 1}, **HX)
    assert texts(as_typed) == [] and "Showing matches" not in as_typed.content.decode()


def test_a_correction_is_only_offered_beside_results_found_as_typed(demo, settings):
    settings.EMBEDDINGS = "none"
    # "vegetarain options": "options" finds sam's fact as typed; the fix is a suggestion.
    response = demo.get("/search/", {"q": "vegetarain options"}, **HX)
    html = response.content.decode()
    assert VEGETARIAN in texts(response)
    assert "Showing matches for" not in html
    assert "Did you mean" in html and "“vegetarian options”" in html


@pytest.mark.parametrize(
    ("query", "finds"),
    [
        ("flying", WINDOW),  # by meaning: no word in common
        ("food", VEGETARIAN),
        ("window seat", WINDOW),
        ("vegetarian", VEGETARIAN),
        ("plane", None),  # below recall's floor, for the API and the page alike
    ],
)
def test_about_me_finds_what_the_api_finds(demo, query, finds):
    expected = _api_about_sam(query)
    found = texts(demo.get("/me/", {"q": query}, **HX))
    assert found == expected
    assert (finds in found) if finds else found == []


def test_about_me_without_a_query_still_lists_everything_newest_first(demo):
    listed = texts(demo.get("/me/", **HX))
    assert listed[:1] == ["Sam asked for the offsite agenda as a shared document"]
    assert WINDOW in listed and VEGETARIAN in listed
