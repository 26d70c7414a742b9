"""Edit in place (with the conflict path), delete and undo, history and restore, clear all."""

import re

import pytest

from memstore.facts.markdown import fact_identity
from tests.helpers import HX, day, plain, texts

pytestmark = pytest.mark.django_db

PROFILE = "agents/ava/memory/profile.md"
PLANS = "Plans offsites and budgets for the Lisbon team"
REF = {"file": PROFILE, "id": fact_identity(PLANS)}


def test_edit_form_then_save_in_place(ann, workspace):
    form = ann.get("/bots/ava/facts/edit/", REF, **HX).content.decode()
    assert form.lstrip().startswith('<li class="fact editing"')
    assert f">{PLANS}</textarea>" in form and 'name="expected"' in form
    saved = ann.post(
        "/bots/ava/facts/edit/",
        REF | {"expected": PLANS, "text": "Plans offsites for Lisbon"},
        **HX,
    )
    assert saved.status_code == 200
    assert (
        texts(saved) == ["Plans offsites for Lisbon"]
        and "by ann via console" in saved.content.decode()
    )
    lines = (workspace / PROFILE).read_text().splitlines()
    # Same date, same place, and now ann's.
    assert f"- ({day(40)}) Plans offsites for Lisbon <!-- by=ann via=console -->" in lines
    assert PLANS not in "\n".join(lines)


def test_cancel_returns_the_row(ann, workspace):
    row = ann.get("/bots/ava/facts/row/", REF, **HX)
    assert texts(row) == [PLANS]


def test_edit_conflict_shows_the_current_text_and_keeps_the_hand_edit(ann, workspace):
    ann.get("/bots/ava/facts/edit/", REF, **HX)
    path = workspace / PROFILE
    path.write_text(path.read_text().replace(PLANS, "Plans offsites, budgets and travel"))
    # the identity changed with the text, so the edit finds nothing under the old id
    response = ann.post("/bots/ava/facts/edit/", REF | {"expected": PLANS, "text": "Mine"}, **HX)
    assert response.status_code == 409
    assert "Plans offsites, budgets and travel" in path.read_text()
    assert "Mine" in response.content.decode()  # what the person typed is not lost


def test_edit_conflict_with_same_identity_shows_current(ann, workspace):
    # A hand edit that only changes case keeps the identity: the console must show it.
    path = workspace / PROFILE
    path.write_text(path.read_text().replace(PLANS, PLANS.upper()))
    response = ann.post("/bots/ava/facts/edit/", REF | {"expected": PLANS, "text": "Mine"}, **HX)
    html = response.content.decode()
    assert response.status_code == 409
    assert '<blockquote class="current">' + PLANS.upper() in html
    assert f'name="expected" value="{PLANS.upper()}"' in html  # saving again is deliberate
    assert PLANS.upper() in path.read_text()


def test_refused_edit_is_shown_and_recorded(ann, workspace):
    data = REF | {"expected": PLANS, "text": "x" * 501}
    assert ann.post("/bots/ava/facts/edit/", data, **HX).status_code == 422
    secret = {
        "file": "projects/launch/memory/by-agent/ava/profile.md",
        "id": fact_identity("Launch goal is 500 beta sign-ups"),
    }
    data = secret | {
        "expected": "Launch goal is 500 beta sign-ups",
        "text": "password: hunter2-hunter2",
    }
    response = ann.post("/bots/ava/facts/edit/", data, **HX)
    assert response.status_code == 422 and "secrets are never saved" in response.content.decode()
    assert "secret_refused" in ann.get("/").content.decode()


def test_delete_then_undo(ann, workspace):
    removed = ann.post("/bots/ava/facts/delete/", REF, **HX)
    html = removed.content.decode()
    assert f"Removed <q>{PLANS}</q>" in html and ">Undo</button>" in html
    assert PLANS not in (workspace / PROFILE).read_text()
    back = ann.post("/bots/ava/facts/undo/", REF, **HX)
    assert texts(back) == [PLANS]
    assert f"- ({day(40)}) {PLANS}" in (workspace / PROFILE).read_text()


def test_delete_without_javascript_shows_a_page_with_undo(ann, workspace):
    html = ann.post("/bots/ava/facts/delete/", REF).content.decode()
    assert html.startswith("<!doctype html>") and ">Undo</button>" in html


def test_history_lists_removal_and_restores_it(ann, workspace):
    ann.post("/bots/ava/facts/delete/", REF, **HX)
    page = ann.get("/bots/ava/history/?removed=1").content.decode()
    assert "removed" in page and PLANS in page
    offset = re.search(r'name="offset" value="(\d+)"', page).group(1)
    done = ann.post("/bots/ava/history/restore/", {"shard": "bot:ava|ava", "offset": offset}, **HX)
    assert "restored" in done.content.decode()
    assert PLANS in (workspace / PROFILE).read_text()
    partial = ann.get("/bots/ava/history/", **HX).content.decode()
    assert partial.lstrip().startswith('<div id="history-list">')
    assert "added" in partial and "by ann via console" in partial


def test_restore_refuses_a_bad_offset(ann, workspace):
    response = ann.post("/bots/ava/history/restore/", {"shard": "bot:ava|ava", "offset": 3}, **HX)
    assert response.status_code == 422


def test_clear_confirmation_counts_and_what_stays(ann, workspace):
    text = plain(ann.get("/bots/ava/clear/", **HX))
    assert "This removes 6 facts from ava’s own memory" in text
    assert (
        "Shared memory stays as it is: 1 fact about people, 1 in its projects, "
        "and 1 in legacy rooms." in text
    )
    assert ann.get("/bots/ava/clear/").content.decode().startswith("<!doctype html>")


def test_clear_removes_own_memory_only(ann, workspace):
    response = ann.post("/bots/ava/clear/")
    assert (response.status_code, response["Location"]) == (302, "/bots/ava/")
    page = ann.get("/bots/ava/").content.decode()
    assert "Removed 6 facts from ava" in page and "0 facts" in page
    assert "# Memory" in (workspace / PROFILE).read_text()  # headers stay
    assert (
        "Ann wants reports" in (workspace / "users/ann/memory/by-agent/ava/profile.md").read_text()
    )
    assert (
        "Launch goal" in (workspace / "projects/launch/memory/by-agent/ava/profile.md").read_text()
    )
    assert texts(ann.get("/bots/ava/?tab=people", **HX)) == [
        "Ann wants reports to lead with decisions"
    ]
