"""Clear and delete with a real undo: a batch comes back exactly (same files, same lines, same
authors and metadata); one fact's undo and a restore from history keep its place and author."""

import re

import pytest

from memstore.facts.markdown import fact_identity
from tests.helpers import HX, day, synced, texts, tree

pytestmark = pytest.mark.django_db

PROFILE = "agents/ava/memory/profile.md"
PLANS = "Plans offsites and budgets for the Lisbon team"


def _memory(before: dict) -> dict:
    # The memory files only: histories grow with every change, by design.
    return {k: v for k, v in before.items() if k.endswith(".md")}


def test_clear_confirmation_focuses_cancel(boss, workspace):
    html = boss.get("/bots/ava/clear/", **HX).content.decode()
    cancel = re.search(r"<a [^>]*>Cancel</a>", html).group()
    remove = re.search(r"<button [^>]*>Remove", html).group()
    assert "autofocus" in cancel and "autofocus" not in remove


def test_undo_clear_puts_the_whole_batch_back_exactly(boss, workspace):
    before = synced(workspace)
    assert boss.post("/bots/ava/clear/").status_code == 302
    assert texts(boss.get("/bots/ava/")) == []
    page = boss.get("/bots/ava/").content.decode()
    assert "Undo clear</button>" in page
    assert boss.post("/bots/ava/undo/").status_code == 302
    assert _memory(tree(workspace)) == _memory(before)  # every byte of every file
    page = boss.get("/bots/ava/").content.decode()
    assert "Put back 6 facts" in page and "Undo clear</button>" not in page
    assert "by ava via tool" in page  # the author is still the author


def test_undo_clear_only_for_the_person_who_cleared(boss, people, workspace):
    from django.test import Client

    boss.post("/bots/ava/clear/")
    other = Client()
    other.force_login(people["ann"])
    assert other.post("/bots/ava/undo/").status_code == 404
    assert "Undo clear" not in other.get("/bots/ava/").content.decode()


def test_undo_after_delete_keeps_place_author_and_metadata(ann, workspace):
    month = f"{day(1):%Y-%m}"
    rel = f"agents/ava/memory/log/{month}.md"
    before = synced(workspace)
    ref = {"file": rel, "id": fact_identity("Booked the rooftop venue for the offsite")}
    assert ann.post("/bots/ava/facts/delete/", ref, **HX).status_code == 200
    assert tree(workspace)[rel] != before[rel]
    row = ann.post("/bots/ava/facts/undo/", ref, **HX)
    assert "by ava via tool" in row.content.decode()
    assert tree(workspace)[rel] == before[rel]


def test_restore_from_history_keeps_place(ann, workspace):
    before = synced(workspace)
    ref = {"file": PROFILE, "id": fact_identity(PLANS)}
    ann.post("/bots/ava/facts/delete/", ref, **HX)
    html = ann.get("/bots/ava/history/?removed=1").content.decode()
    offset = re.search(r'name="offset" value="(\d+)"', html).group(1)
    shard = re.search(r'name="shard" value="([^"]+)"', html).group(1)
    ann.post("/bots/ava/history/restore/", {"shard": shard, "offset": offset}, **HX)
    assert tree(workspace)[PROFILE] == before[PROFILE]
    assert "restored" in ann.get("/bots/ava/history/").content.decode()


def test_bulk_delete_then_undo(boss, workspace):
    before = synced(workspace)
    month = f"{day(1):%Y-%m}"
    picked = [
        f"{PROFILE}|{fact_identity(PLANS)}",
        f"agents/ava/memory/log/{month}.md|{fact_identity('[note] Catering quotes arrive by email')}",
        f"users/sam/memory/by-agent/ava/profile.md|{fact_identity('Sam is vegetarian')}",
    ]
    response = boss.post("/bots/ava/facts/delete-many/", {"fact": picked, "back": "/bots/ava/"})
    assert (response.status_code, response["Location"]) == (302, "/bots/ava/")
    page = boss.get("/bots/ava/").content.decode()
    assert "Deleted 3 facts" in page and "Undo delete</button>" in page
    assert PLANS not in texts(boss.get("/bots/ava/"))
    boss.post("/bots/ava/undo/")
    assert _memory(tree(workspace)) == _memory(before)


def test_bulk_delete_keeps_privacy(ann, workspace):
    before = synced(workspace)
    picked = [f"users/sam/memory/by-agent/ava/profile.md|{fact_identity('Sam is vegetarian')}"]
    assert ann.post("/bots/ava/facts/delete-many/", {"fact": picked}).status_code == 403
    assert _memory(tree(workspace)) == _memory(before)


def test_row_buttons_name_the_fact(ann, workspace):
    html = ann.get("/bots/ava/").content.decode()
    assert 'aria-label="Delete ‘Plans offsites and budgets for the Lisb…’"' in html
    assert 'aria-label="Select ‘Catering quotes arrive by email’"' in html
