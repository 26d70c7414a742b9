"""Adding a fact in the console and editing every field of one: the same rules as the API,
errors beside the fields, nothing stored on a refusal."""

import os

import pytest

from memstore.facts.markdown import fact_identity
from tests.helpers import HX, day, facts_on_disk, synced, tree

pytestmark = pytest.mark.django_db

PROFILE = "agents/ava/memory/profile.md"
ROOFTOP = "Booked the rooftop venue for the offsite"


def _add(client, **fields):
    data = {"scope": "bot:ava", "tier": "log", "type": "fact", "visibility": "context"}
    return client.post("/bots/ava/facts/add/", data | fields)


def test_add_form_offers_the_scopes_the_person_may_write(ann, workspace):
    html = ann.get("/bots/ava/facts/add/").content.decode()
    for field in ("text", "scope", "tier", "type", "visibility", "importance", "day"):
        assert f'name="{field}"' in html
    assert 'value="bot:ava"' in html and 'value="user:ann"' in html
    assert 'value="project:launch"' in html and 'value="user:sam"' not in html


def test_add_a_fact_with_every_field(ann, workspace):
    response = _add(
        ann,
        text="Prefers window seats",
        tier="profile",
        type="preference",
        visibility="searchable",
        importance="0.8",
        day="2026-11-02",
    )
    assert (response.status_code, response["Location"]) == (302, "/bots/ava/?tab=own")
    added = facts_on_disk(workspace)[PROFILE][-1]
    assert (str(added.day), added.text) == ("2026-11-02", "Prefers window seats")
    assert {k: added.meta[k] for k in ("type", "visibility", "importance")} == {
        "type": "preference",
        "visibility": "searchable",
        "importance": "0.8",
    }
    page = ann.get("/bots/ava/").content.decode()
    assert "Saved to own: Prefers window seats" in page
    assert '<span class="badge">importance 0.8</span>' in page  # its badge on the row


def test_add_to_my_user_memory_lands_in_the_bots_shard(ann, workspace):
    response = _add(ann, text="Ann likes tea", scope="user:ann", tier="note")
    assert response["Location"] == "/bots/ava/?tab=people"
    month = f"{day(0):%Y-%m}"
    facts = facts_on_disk(workspace)[f"users/ann/memory/by-agent/ava/log/{month}.md"]
    assert [f.text for f in facts] == ["[note] Ann likes tea"]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"text": "password: hunter2hunter2", "scope": "project:launch"}, "secrets are never"),
        ({"text": "x" * 501}, "at most 500 characters"),
        ({"text": "Fine", "importance": "2"}, "less than or equal to 1"),
        ({"text": "Fine", "scope": "user:sam"}, "Select a valid choice"),
        ({"text": ""}, "This field is required"),
    ],
)
def test_refused_add_shows_why_and_stores_nothing(ann, workspace, fields, message):
    before = synced(workspace)
    response = _add(ann, **fields)
    html = response.content.decode()
    assert response.status_code == 422 and message in html
    assert 'role="alert"' in html and "Add a fact" in html
    assert {k: v for k, v in tree(workspace).items() if "failures" not in k} == before


def _edit(client, text=ROOFTOP, **fields):
    month = f"{day(1):%Y-%m}"
    ref = {"file": f"agents/ava/memory/log/{month}.md", "id": fact_identity(ROOFTOP)}
    data = ref | {"expected": ROOFTOP, "text": text, "tier": "log", "type": "decision"}
    data |= {"visibility": "context", "importance": "", "day": str(day(1))}
    return client.post("/bots/ava/facts/edit/", data | fields, **HX)


def test_edit_form_shows_every_field(ann, workspace):
    month = f"{day(1):%Y-%m}"
    ref = {"file": f"agents/ava/memory/log/{month}.md", "id": fact_identity(ROOFTOP)}
    html = ann.get("/bots/ava/facts/edit/", ref, **HX).content.decode()
    assert '<option value="decision" selected>' in html
    assert '<option value="log" selected>' in html and f'value="{day(1)}"' in html


def test_edit_metadata_in_place(ann, workspace):
    month = f"{day(1):%Y-%m}"
    rel = f"agents/ava/memory/log/{month}.md"
    before = [f.text for f in facts_on_disk(workspace)[rel]]
    response = _edit(ann, type="preference", visibility="hidden", importance="0.3")
    assert response.status_code == 200 and "hidden-badge" in response.content.decode()
    facts = facts_on_disk(workspace)[rel]
    assert [f.text for f in facts] == before  # same place
    meta = facts[0].meta
    assert (meta["type"], meta["visibility"], meta["importance"]) == ("preference", "hidden", "0.3")


def test_edit_tier_moves_the_fact_to_the_profile(ann, workspace):
    assert _edit(ann, tier="profile").status_code == 200
    on_disk = facts_on_disk(workspace)
    assert [f.text for f in on_disk[PROFILE]][-1] == ROOFTOP
    assert ROOFTOP not in [f.text for f in on_disk[f"agents/ava/memory/log/{day(1):%Y-%m}.md"]]
    assert on_disk[PROFILE][-1].meta["type"] == "decision"


def test_edit_date_to_another_month_moves_the_fact(ann, workspace):
    assert _edit(ann, day="2020-01-20").status_code == 200
    moved = facts_on_disk(workspace)["agents/ava/memory/log/2020-01.md"]
    assert [(str(f.day), f.text) for f in moved][-1] == ("2020-01-20", ROOFTOP)


def test_refused_edit_keeps_the_fact(ann, workspace):
    before = synced(workspace)
    response = _edit(ann, tier="profile", importance="7")
    assert response.status_code == 422 and "less than or equal to 1" in response.content.decode()
    assert tree(workspace) == before


@pytest.mark.parametrize("when", ["0001-01-01", "1899-12-31", "9999-12-31"])
def test_a_date_outside_the_sane_range_is_refused_beside_the_form(ann, workspace, when):
    before = tree(workspace)
    response = _add(ann, text="Dated oddly", day=when)
    assert response.status_code == 422
    assert (
        "out of range: a fact&#x27;s date must be between 1900-01-01" in response.content.decode()
    )
    assert tree(workspace) == before


def test_the_home_and_health_pages_say_when_the_memory_volume_is_full(boss, small_volume):
    assert "memory_volume_full" not in boss.get("/").content.decode()
    free = os.statvfs(small_volume)
    (small_volume / "ballast.bin").write_bytes(b"\0" * (free.f_bavail * free.f_frsize - 100_000))
    for page in ("/", "/health/"):
        html = boss.get(page).content.decode()
        assert 'data-code="memory_volume_full"' in html and "nearly full" in html, page
