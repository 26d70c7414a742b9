"""A person confirms a fact or marks it outdated, wrong or do-not-use on a bot's page: the line
in the file carries it, a wrong fact leaves search and the prompt preview at once and shows in
Health, and confirming brings it back verified. Only the bot's editors may."""

import pytest

from memstore.facts.markdown import fact_identity
from tests.helpers import HX, TODAY, texts

pytestmark = pytest.mark.django_db

PROFILE = "agents/ava/memory/profile.md"
PLANS = "Plans offsites and budgets for the Lisbon team"
REF = {"file": PROFILE, "id": fact_identity(PLANS)}


@pytest.fixture(autouse=True)
def words_only(settings):
    settings.EMBEDDINGS = "none"


def test_wrong_then_confirm(ann, workspace, ava_acts_for_ann):
    page = ann.get("/bots/ava/").content.decode()
    assert 'name="verb" value="wrong"' in page and "Still true" in page
    marked = ann.post("/bots/ava/facts/feedback/", REF | {"verb": "wrong"}, **HX)
    assert marked.status_code == 200
    assert "marked wrong" in marked.content.decode()
    assert (
        f"{PLANS} <!-- mark=wrong review={TODAY.isoformat()} by=ann via=console -->"
        in (workspace / PROFILE).read_text()
    )
    assert PLANS not in texts(ann.get("/search/", {"q": "Lisbon offsites"}))
    assert "Lisbon team" not in ann.get("/bots/ava/prompt/").content.decode()
    assert "marked wrong: left out of prompts" in ann.get("/bots/ava/health/").content.decode()

    confirmed = ann.post("/bots/ava/facts/feedback/", REF | {"verb": "confirm"}, **HX)
    assert f"verified {TODAY.isoformat()}" in confirmed.content.decode()
    assert (
        f"{PLANS} <!-- by=ann via=console checked={TODAY.isoformat()} -->"
        in (workspace / PROFILE).read_text()
    )
    assert PLANS in texts(ann.get("/search/", {"q": "Lisbon offsites"}))
    assert "Lisbon team" in ann.get("/bots/ava/prompt/").content.decode()


def test_without_javascript_the_page_comes_back_with_a_message(ann, workspace):
    answer = ann.post("/bots/ava/facts/feedback/", REF | {"verb": "outdated"}, follow=True)
    assert "Marked outdated." in answer.content.decode()
    assert "mark=outdated" in (workspace / PROFILE).read_text()


def test_a_reader_who_is_no_editor_may_not_mark(client, people, workspace):
    client.force_login(people["sam"])
    refused = client.post("/bots/ava/facts/feedback/", REF | {"verb": "wrong"}, **HX)
    assert refused.status_code == 403
    assert "mark=" not in (workspace / PROFILE).read_text()


def test_an_unknown_verb_is_refused(ann, workspace):
    refused = ann.post("/bots/ava/facts/feedback/", REF | {"verb": "meh"}, **HX)
    assert refused.status_code == 422
    assert "confirm, outdated, wrong, do-not-use" in refused.content.decode()
