"""Sharing a private memory with the workspace (seed 004), in the console and the service: staff
only, shown who will see it first (Cancel focused), a new version in workspace memory with the
private one kept as history, an audit entry; secrets, sensitive keywords and replaced, expired
or forgotten memories refused with the reason; a shared memory can't be made private again."""

import json

import pytest

from memstore.facts.markdown import fact_identity
from memstore.prompt.section import prompt_build
from memstore.registry.bots import bot_create, bot_private_set
from memstore.rooms.context import context_open
from tests.helpers import HX, day, facts_on_disk, texts_on_disk, write_memory

pytestmark = pytest.mark.django_db

ANN_FILE = "users/ann/memory/by-agent/ava/profile.md"
ANN_FACT = "Ann wants reports to lead with decisions"
SHARED_FILE = "server/workspace/memory/by-agent/ava/profile.md"
REF = {"file": ANN_FILE, "id": fact_identity(ANN_FACT)}


@pytest.fixture
def bots(db):
    for slug in ("ava", "ben"):
        bot_create(slug=slug)


def test_staff_see_who_will_read_it_and_cancel_is_focused(boss, workspace, bots):
    page = boss.get("/bots/ava/?tab=people").content.decode()
    assert "Share with workspace…" in page
    html = boss.get("/bots/ava/facts/share/", REF, **HX).content.decode()
    assert f"Share <q>{ANN_FACT}</q> (about ann) with the workspace?" in html
    assert "every person in this workspace and every bot (2 bots: ava, ben)" in html
    assert "can’t be made private again" in html
    assert "data-cancel autofocus>Cancel</a>" in html
    assert facts_on_disk(workspace)[ANN_FILE][0].text == ANN_FACT  # asking changed nothing


def test_sharing_writes_a_new_version_keeps_the_private_one_as_history_and_audits_it(
    boss, workspace, bots
):
    answer = boss.post("/bots/ava/facts/share/", REF, **HX)
    assert answer.status_code == 200
    assert "Shared with the workspace" in answer.content.decode()
    on_disk = facts_on_disk(workspace)
    [shared] = on_disk[SHARED_FILE]
    assert (shared.text, shared.meta["shared"]) == (ANN_FACT, "user:ann")
    assert ANN_FILE not in on_disk  # the private line is closed...
    history = (workspace / "users/ann/memory/by-agent/ava/history.jsonl").read_text()
    removed = [json.loads(line) for line in history.splitlines()]
    assert (removed[-1]["op"], removed[-1]["fact_id"], removed[-1]["by"]) == (
        ("remove", REF["id"], "boss")  # ...and kept in its history, restorable
    )
    [entry] = [json.loads(line) for line in (workspace / "audit.jsonl").read_text().splitlines()]
    assert {k: entry[k] for k in ("action", "fact_id", "source", "target", "by")} == {
        "action": "share",
        "fact_id": REF["id"],
        "source": ANN_FILE,
        "target": SHARED_FILE,
        "by": "boss",
    }
    assert ANN_FACT not in json.dumps(entry)  # the trail names facts, never their text
    # every bot reads it now, in every room
    ben_in_group = context_open(bot="ben", room_id="team", room_kind="group")
    assert ANN_FACT in prompt_build(ctx=ben_in_group).text
    page = boss.get("/bots/ava/?tab=workspace").content.decode()
    assert ANN_FACT in page and ">shared</span>" in page and "Share with workspace…" not in page


def test_without_javascript_it_goes_to_the_workspace_tab(boss, workspace, bots):
    answer = boss.post("/bots/ava/facts/share/", REF)
    assert (answer.status_code, answer["Location"]) == (302, "/bots/ava/?tab=workspace")


def test_a_person_who_is_not_staff_never_sees_the_button_and_may_not_share(ann, workspace):
    assert "Share with workspace" not in ann.get("/bots/ava/?tab=people").content.decode()
    before = texts_on_disk(workspace)
    assert ann.post("/bots/ava/facts/share/", REF).status_code == 403
    assert ann.get("/bots/ava/facts/share/", REF).status_code == 403
    assert texts_on_disk(workspace) == before


def test_a_shared_or_team_wide_memory_is_not_offered_and_refused_with_why(boss, workspace, bots):
    own = {
        "file": "agents/ava/memory/profile.md",
        "id": fact_identity("Plans offsites and budgets for the Lisbon team"),
    }
    answer = boss.get("/bots/ava/facts/share/", own, **HX)
    assert answer.status_code == 409
    assert "already team-wide" in answer.content.decode()
    boss.post("/bots/ava/facts/share/", REF, **HX)
    again = boss.get("/bots/ava/facts/share/", {"file": SHARED_FILE, "id": REF["id"]}, **HX)
    assert again.status_code == 409
    assert "a shared memory can&#x27;t be made private again" in again.content.decode()


def test_a_shared_memory_cant_be_made_private_by_an_edit(boss, workspace, bots):
    boss.post("/bots/ava/facts/share/", REF, **HX)
    data = {"file": SHARED_FILE, "id": REF["id"], "expected": ANN_FACT, "text": ANN_FACT}
    data |= {"tier": "profile", "type": "fact", "visibility": "private", "importance": ""}
    data |= {"day": str(day(20))}
    answer = boss.post("/bots/ava/facts/edit/", data, **HX)
    assert answer.status_code == 422
    assert "can&#x27;t be made private again" in answer.content.decode()
    assert "visibility" not in facts_on_disk(workspace)[SHARED_FILE][0].meta


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("Ann's staging password: hunter2hunter2", "secrets are never saved"),
        ("Ann has a medical appointment on Friday", "sensitive keyword"),
    ],
)
def test_a_secret_or_a_sensitive_keyword_is_refused_and_nothing_changes(
    boss, workspace, bots, line, why
):
    write_memory(
        workspace, "users/ann/memory/by-agent/ava/log/2026-11.md", f"- (2026-11-20) {line}"
    )
    ref = {"file": "users/ann/memory/by-agent/ava/log/2026-11.md", "id": fact_identity(line)}
    before = texts_on_disk(workspace)
    for answer in (
        boss.get("/bots/ava/facts/share/", ref, **HX),
        boss.post("/bots/ava/facts/share/", ref, **HX),
    ):
        assert answer.status_code == 422 and why in answer.content.decode()
    assert texts_on_disk(workspace) == before


def test_a_replaced_an_expired_and_a_forgotten_memory_are_refused(boss, workspace, bots):
    old = "Ann prefers Tuesday reviews"
    write_memory(
        workspace,
        "users/ann/memory/by-agent/ava/log/2026-11.md",
        f"- (2026-11-01) {old}",
        f"- (2026-11-09) Ann prefers Thursday reviews <!-- rel=supersedes:{fact_identity(old)} -->",
        "- (2026-01-09) Ann is in Lisbon this week <!-- until=2026-01-16 -->",
    )
    log = "users/ann/memory/by-agent/ava/log/2026-11.md"
    cases = {
        old: "replaced by a newer one",
        "Ann is in Lisbon this week": "no longer true (until 2026-01-16)",
    }
    for text, why in cases.items():
        answer = boss.get("/bots/ava/facts/share/", {"file": log, "id": fact_identity(text)}, **HX)
        assert answer.status_code == 409 and why in answer.content.decode(), text
    assert boss.post("/bots/ava/facts/delete/", REF, **HX).status_code == 200
    gone = boss.get("/bots/ava/facts/share/", REF, **HX)
    assert gone.status_code == 409 and "was forgotten" in gone.content.decode()


def test_a_private_agents_memory_is_shared_the_same_way(boss, workspace, bots):
    bot_private_set(bot="ben", private=True)
    ref = {"file": "agents/ben/memory/profile.md", "id": fact_identity("Ben summarises papers")}
    assert "Share with workspace…" in boss.get("/bots/ben/").content.decode()
    html = boss.get("/bots/ben/facts/share/", ref, **HX).content.decode()
    assert "(ben’s private memory)" in html
    assert boss.post("/bots/ben/facts/share/", ref, **HX).status_code == 200
    assert texts_on_disk(workspace)["server/workspace/memory/by-agent/ben/profile.md"] == [
        "Ben summarises papers"
    ]
    assert "agents/ben/memory/profile.md" not in texts_on_disk(workspace)
