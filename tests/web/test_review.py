"""The review inbox (the learner's report-mode proposals) and provenance you can follow: from a
learned fact to its exchange, and from there to every fact it produced."""

import re

import pytest

from memstore.models import ProposalReview
from tests.helpers import HX, direct, facts_on_disk, group, learned, texts, tree

pytestmark = pytest.mark.django_db

ANN_PROFILE = "users/ann/memory/by-agent/ava/profile.md"


def _keys(html: str) -> list[str]:
    return re.findall(r'name="key" value="([^"]+)" form="review-bulk"', html)


@pytest.fixture
def proposals(report_mode, workspace):
    """ann's direct room: two saves; a group room: one save."""
    learned(
        direct("ava", "ann", "dm-ann"),
        report_mode,
        "profile: Lives in Lisbon\nprofile: Is vegetarian",
        message_id="m1",
    )
    learned(group("ava", "team"), report_mode, "note: The team ships on Fridays", message_id="m2")
    return report_mode


def test_inbox_lists_proposals_with_a_count_in_the_navigation(ann, proposals):
    html = ann.get("/bots/ava/review/").content.decode()
    assert texts(ann.get("/bots/ava/review/")) == [
        "Lives in Lisbon",
        "Is vegetarian",
        "[note] The team ships on Fridays",
    ]
    assert 'aria-label="3 waiting">3</span>' in html
    assert 'aria-label="3 waiting"' in ann.get("/bots/ava/").content.decode()


def test_inbox_keeps_other_peoples_direct_rooms_private(client, people, proposals):
    client.force_login(people["sam"])
    assert texts(client.get("/bots/ava/review/")) == ["[note] The team ships on Fridays"]


def test_accept_writes_what_write_mode_would_have(ann, proposals, workspace):
    before = facts_on_disk(workspace).get(ANN_PROFILE, [])
    key = _keys(ann.get("/bots/ava/review/").content.decode())[0]
    response = ann.post("/bots/ava/review/decide/", {"key": key, "decision": "accepted"})
    assert response.status_code == 302
    added = facts_on_disk(workspace)[ANN_PROFILE]
    assert len(added) == len(before) + 1
    fact = added[-1]
    assert fact.text == "Lives in Lisbon"
    assert (fact.meta["src"], fact.meta["by"], fact.meta["via"]) == (
        "room:dm-ann/msg:m1",
        "ava",
        "learner",
    )
    page = ann.get("/bots/ava/review/").content.decode()
    assert "Accepted 1 proposal." in page and "Lives in Lisbon" not in texts_of(page)
    assert ProposalReview.objects.get().by == "ann"


def texts_of(html: str) -> list[str]:
    return re.findall(r'<p class="fact-text">(.*?)</p>', html, re.S)


def test_edit_then_accept(ann, proposals, workspace):
    key = _keys(ann.get("/bots/ava/review/").content.decode())[1]
    ann.post(
        "/bots/ava/review/decide/",
        {"key": key, "decision": "accepted", "text": "Is vegetarian (no fish either)"},
    )
    fact = facts_on_disk(workspace)[ANN_PROFILE][-1]
    assert (fact.text, fact.meta["via"]) == ("Is vegetarian (no fish either)", "learner")


def test_bulk_reject_writes_nothing(boss, proposals, workspace):
    before = tree(workspace)
    keys = _keys(boss.get("/bots/ava/review/").content.decode())
    response = boss.post("/bots/ava/review/decide/", {"key": keys, "decision": "rejected"})
    assert response.status_code == 302
    assert tree(workspace) == before
    assert "Rejected 3 proposals." in boss.get("/bots/ava/review/").content.decode()
    assert "Nothing waits for review." in boss.get("/bots/ava/review/").content.decode()


def test_bulk_accept(boss, proposals, workspace):
    keys = _keys(boss.get("/bots/ava/review/").content.decode())
    boss.post("/bots/ava/review/decide/", {"key": keys, "decision": "accepted"})
    on_disk = facts_on_disk(workspace)
    assert [f.text for f in on_disk[ANN_PROFILE]][-2:] == ["Lives in Lisbon", "Is vegetarian"]
    own_logs = [f.text for k, fs in on_disk.items() if k.startswith("agents/ava/") for f in fs]
    assert "[note] The team ships on Fridays" in own_logs


def test_deciding_twice_is_404(ann, proposals):
    key = _keys(ann.get("/bots/ava/review/").content.decode())[0]
    ann.post("/bots/ava/review/decide/", {"key": key, "decision": "rejected"})
    assert (
        ann.post("/bots/ava/review/decide/", {"key": key, "decision": "accepted"}).status_code
        == 404
    )


def test_a_learned_fact_leads_to_its_exchange_and_its_siblings(ann, proposals, workspace):
    keys = _keys(ann.get("/bots/ava/review/").content.decode())
    ann.post("/bots/ava/review/decide/", {"key": keys[:2], "decision": "accepted"})
    page = ann.get("/bots/ava/?tab=people").content.decode()
    link = re.search(r'href="(/bots/ava/exchange/\?src=[^"]+)">from room dm-ann', page).group(1)
    trace = ann.get(link.replace("&amp;", "&"))
    html = trace.content.decode()
    assert trace.status_code == 200
    assert "I moved to Lisbon last week" in html and "<code>m1</code>" in html
    assert "would have saved" in html
    assert sorted(texts(trace)) == ["Is vegetarian", "Lives in Lisbon"]


def test_exchange_of_another_persons_direct_room_is_private(client, people, proposals):
    client.force_login(people["sam"])
    response = client.get("/bots/ava/exchange/?src=room:dm-ann/msg:m1")
    assert response.status_code == 403


def test_partial_not_needed_for_review_page(ann, proposals):
    # The inbox is a plain page: an htmx request gets the whole page too.
    assert ann.get("/bots/ava/review/", **HX).content.decode().startswith("<!doctype html>")
