"""The console's issue-11 pages: the always-on notes (who may edit which, versions, restore,
limits), the prompt preview showing notes and freshness, a fact's versions and restoring one,
a bot's memory as of a date, and the importance filter."""

from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.utils import timezone

from memstore.facts.markdown import fact_identity
from memstore.prompt.notes import note_read, note_save
from tests.helpers import HistoryClock, plain, write_memory

pytestmark = pytest.mark.django_db
OWN = "agents/ava/memory/profile.md"
TEXT = "Plans offsites and budgets for the Lisbon team"


def _as(people, name: str) -> Client:
    client = Client()
    client.force_login(people[name])
    return client


def test_staff_edit_the_workspace_note_and_people_may_only_read_it(people):
    ann, boss = _as(people, "ann"), _as(people, "boss")
    assert (
        boss.post("/notes/workspace/", {"text": "We are Acme.", "expected": ""}).status_code == 302
    )
    assert note_read(kind="workspace").text == "We are Acme.\n"
    refused = ann.post("/notes/workspace/", {"text": "Hijacked.", "expected": "We are Acme.\n"})
    assert refused.status_code == 403 and note_read(kind="workspace").text == "We are Acme.\n"
    page = plain(ann.get("/notes/workspace/"))
    assert "We are Acme." in page and "Save" not in page


def test_a_person_writes_their_about_you_and_nobody_else_may_open_it(ann, people):
    client = _as(people, "sam")
    ann.post("/notes/you/", {"text": "Call me Ann; I read on a phone.", "expected": ""})
    assert note_read(kind="you", name="ann").text == "Call me Ann; I read on a phone.\n"
    assert client.get("/notes/you/ann/").status_code == 403
    assert client.post("/notes/you/ann/", {"text": "x", "expected": ""}).status_code == 403


def test_note_versions_are_listed_and_restored(boss, workspace):
    note_save(kind="me", name="ava", text="First about me.")
    boss.post("/bots/ava/about-me/", {"text": "Second about me.", "expected": "First about me.\n"})
    page = plain(boss.get("/bots/ava/about-me/"))
    assert "Second about me." in page and "First about me." in page
    version = [
        v
        for v in __import__("memstore.prompt.notes").prompt.notes.note_versions(
            kind="me", name="ava"
        )
    ][0]
    boss.post("/bots/ava/about-me/restore/", {"version": version.id})
    assert note_read(kind="me", name="ava").text == "First about me.\n"


def test_a_note_over_the_limit_is_refused_with_the_reason(boss):
    answer = boss.post("/notes/workspace/", {"text": "x" * 1501, "expected": ""})
    assert answer.status_code == 422 and "at most 1,500 characters" in plain(answer)
    assert note_read(kind="workspace").text == ""


def test_the_preview_opens_with_the_notes(ann, workspace, ava_acts_for_ann):
    note_save(kind="workspace", text="We are Acme.")
    note_save(kind="you", name="ann", text="Call me Ann.")
    direct = plain(ann.get("/bots/ava/prompt/"))
    assert (
        direct.index("We are Acme.") < direct.index("Call me Ann.") < direct.index("Plans offsites")
    )
    group = plain(ann.get("/bots/ava/prompt/?kind=group"))
    assert "We are Acme." in group and "Call me Ann." not in group


def test_the_preview_says_when_it_is_stale(ann, workspace, monkeypatch, ava_acts_for_ann):
    from memstore.index import budget as read_budget

    assert "could not be synced" not in plain(ann.get("/bots/ava/prompt/"))  # synced: fresh
    monkeypatch.setattr(
        read_budget, "_try_sync", lambda scopes, ms, read, left, fold, new_facts: (False, [])
    )
    text = plain(ann.get("/bots/ava/prompt/"))
    assert "could not be synced within the time budget" in text and "Plans offsites" in text


def _versions_url(fact_id: str) -> str:
    return "/bots/ava/versions/?" + urlencode({"file": OWN, "id": fact_id})


def test_an_edit_keeps_the_old_text_as_a_version_that_can_be_restored(ann, workspace):
    ann.post(
        "/bots/ava/facts/edit/",
        {"file": OWN, "id": fact_identity(TEXT), "expected": TEXT, "text": "Plans offsites"},
    )
    page = plain(ann.get(_versions_url(fact_identity("Plans offsites"))))
    assert TEXT in page and "replaced by ann via console" in page
    from memstore.console.versions import console_fact_versions
    from memstore.console.viewer import Viewer

    found = console_fact_versions(
        viewer=Viewer("ann"), file=OWN, fact_id=fact_identity("Plans offsites")
    )
    answer = ann.post(
        "/bots/ava/versions/restore/",
        {"file": OWN, "id": fact_identity("Plans offsites"), "at": found.versions[0].at},
    )
    assert answer.status_code == 302
    assert TEXT in (workspace / OWN).read_text() and "- (" in (workspace / OWN).read_text()
    restored = plain(ann.get(_versions_url(fact_identity(TEXT))))
    assert "Plans offsites" in restored  # the text it replaced is a version in turn


def test_versions_of_another_persons_memory_are_refused(ann, workspace):
    url = "/bots/ava/versions/?" + urlencode(
        {
            "file": "users/sam/memory/by-agent/ava/profile.md",
            "id": fact_identity("Sam is vegetarian"),
        }
    )
    assert ann.get(url).status_code == 403


def test_as_of_a_date_shows_what_the_bot_knew(ann, workspace, monkeypatch):
    clock = HistoryClock(monkeypatch, datetime(2026, 1, 1, tzinfo=UTC))
    ann.get("/bots/ava/")  # the first sync records every line already on disk
    clock.at(datetime.now(UTC))
    ann.post("/bots/ava/facts/delete/", {"file": OWN, "id": fact_identity(TEXT)})
    then = plain(ann.get("/bots/ava/as-of/?day=2026-01-02"))
    now = plain(ann.get(f"/bots/ava/as-of/?day={timezone.localdate() + timedelta(days=1)}"))
    assert TEXT in then and "Ann wants reports" in then and "Sam is vegetarian" not in then
    assert TEXT not in now
    # Before history: the lines on disk when it began count from their own dates.
    before = plain(ann.get("/bots/ava/as-of/?day=2025-12-31"))
    assert "History starts on 2026-01-01" in before
    assert "Old memories of 2020" in before and TEXT not in before
    assert "Nothing was known yet" in plain(ann.get("/bots/ava/as-of/?day=2019-12-31"))


def test_the_importance_filter_keeps_high_or_low_importance_facts(ann, workspace):
    write_memory(
        workspace,
        "agents/ava/memory/log/2026-02.md",
        "- (2026-02-01) Must renew the venue contract <!-- importance=0.9 -->",
        "- (2026-02-01) Fully essential fact <!-- importance=1 -->",
        "- (2026-02-02) The coffee machine is blue <!-- importance=0.1 -->",
        "- (2026-02-03) Ordinary thing <!-- importance=0.5 -->",
    )
    high = plain(ann.get("/bots/ava/?importance=high"))
    assert "Must renew" in high and "Fully essential" in high and "importance 0.9" in high
    assert (
        "coffee machine" not in high
        and "Ordinary thing" not in high
        and "Plans offsites" not in high
    )
    low = plain(ann.get("/bots/ava/?importance=low"))
    assert "coffee machine" in low and "Must renew" not in low and "Ordinary" not in low
