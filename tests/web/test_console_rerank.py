"""The console never calls the reranker: searching as you type on a bot's page, on /search/ and
on About me, a submitted search, and "Why here?" all show (and explain) the fusion's order, so a
remote reranker (a fake local /v1/rerank server counting its calls) is never called or charged
by a person typing. The bots' recall, with the same setting, still calls it."""

import html
import re

import pytest

from memoryconsole.web.presenters.why import ordinal
from memstore.facts.markdown import fact_identity
from memstore.facts.paths import Scope
from memstore.recall import recall_in_scopes
from tests.helpers import HX, day, write_memory
from tests.memstore.recall.test_rerank import remote  # noqa: F401 (the fake reranker fixture)

pytestmark = pytest.mark.django_db

OFFSITE = "Booked the rooftop venue for the offsite"


@pytest.fixture
def reranker(settings, remote, workspace):  # noqa: F811
    settings.EMBEDDINGS = "none"
    write_memory(
        workspace,
        f"agents/ava/memory/log/{day(60):%Y-%m}.md",
        f"- ({day(60)}) The offsite agenda is shared in the team drive",
        f"- ({day(61)}) The offsite shuttle leaves at eight",
    )
    # It likes the budgets best and the rooftop venue least: were the console reranking, the
    # venue (the fusion's first: newest, shortest) would not come first.
    return remote(["budgets", "agenda", "shuttle"])


def _typed(client, url, words):
    """What htmx asks for as each letter is typed (a request per pause in typing)."""
    for end in range(3, len(words) + 1):
        assert client.get(url, {"q": words[:end]}, **HX).status_code == 200


def test_typing_and_submitting_console_searches_never_call_the_reranker(ann, workspace, reranker):
    _typed(ann, "/bots/ava/", "offsite")
    _typed(ann, "/search/", "offsite")
    _typed(ann, "/me/", "lisbon")
    submitted = ann.get("/search/", {"q": "offsite"}).content.decode()
    ann.get("/bots/ava/", {"q": "offsite"})
    assert "rooftop venue" in submitted
    assert reranker.requests == []

    ava = [Scope("bot", "ava")]
    fusion = [f.text for f in recall_in_scopes(scopes=ava, query="offsite", rerank=False).items]
    assert reranker.requests == []
    bots = [f.text for f in recall_in_scopes(scopes=ava, query="offsite").items]
    assert len(reranker.requests) == 1  # the same setting: the bots' recall reranks
    assert bots != fusion  # and that reorders these facts
    page = ann.get("/bots/ava/", {"q": "offsite"}, **HX).content.decode()
    assert _texts(page) == fusion  # the console shows the fusion's order


def _texts(page: str) -> list[str]:
    found = re.findall(r'<p class="fact-text">(.*?)</p>', page, re.S)
    return [html.unescape(re.sub(r"</?mark>", "", text)) for text in found]


def test_why_here_explains_the_fusion_order_without_calling_the_reranker(ann, workspace, reranker):
    fact = fact_identity(OFFSITE)
    fusion = recall_in_scopes(scopes=[Scope("bot", "ava")], query="offsite", rerank=False)
    place = [f.text for f in fusion.items].index(OFFSITE) + 1
    for url in ("/search/why/", "/bots/ava/search/why/"):
        text = ann.get(url, {"q": "offsite", "id": fact}, **HX).content.decode()
        assert f"{ordinal(place)} of the results" in text
        assert "not used here: the console shows the fusion&#x27;s order" in text
    assert reranker.requests == []
