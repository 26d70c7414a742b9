"""The share audit in the console (staff only): every share, newest first, who shared what from
where to where and when, read from the workspace's audit trail on disk."""

import pytest

from memstore.facts.markdown import fact_identity
from memstore.registry.bots import bot_create
from tests.helpers import HX

pytestmark = pytest.mark.django_db

ANN_FILE = "users/ann/memory/by-agent/ava/profile.md"
ANN_FACT = "Ann wants reports to lead with decisions"
SAM_FILE = "users/sam/memory/by-agent/ava/profile.md"
SAM_FACT = "Sam is vegetarian"


def test_staff_read_every_share_newest_first(boss, workspace):
    bot_create(slug="ava")
    for file, text in ((ANN_FILE, ANN_FACT), (SAM_FILE, SAM_FACT)):
        ref = {"file": file, "id": fact_identity(text)}
        assert boss.post("/bots/ava/facts/share/", ref, **HX).status_code == 200
    (workspace / "audit.jsonl").open("a").write("not json\n")

    page = boss.get("/audit/").content.decode()

    assert "<h1>Share audit</h1>" in page
    rows = page.split("<tbody>")[1].split("</tbody>")[0].split("<tr>")[1:]
    assert [("Sam" in r and SAM_FILE in r, ANN_FILE in r) for r in rows] == [
        (True, False),
        (False, True),
    ]
    assert all("boss" in r and "server/workspace/memory/by-agent/ava/profile.md" in r for r in rows)
    assert ANN_FACT in rows[1]  # what was shared, as the shared copy says it now
    assert "1 line of the audit file could not be read" in page
    assert 'href="/audit/"' in boss.get("/people/").content.decode()


def test_people_who_are_not_staff_may_not_read_it(ann, workspace):
    response = ann.get("/audit/")
    assert response.status_code == 403
    assert "Only staff" in response.content.decode()


def test_an_empty_trail_says_so(boss, workspace):
    assert "Nothing has been shared yet." in boss.get("/audit/").content.decode()
