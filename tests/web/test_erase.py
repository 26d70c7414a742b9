"""The console's Delete (restorable: history keeps it) and Delete and erase (nothing left where
the person may erase: staff everywhere, a person across every bot's shard of their own memory),
each checked with `manage.py memory verify-forgotten`."""

import pytest

from memstore.facts.markdown import fact_identity
from tests.helpers import HX, day, plain, remaining, remaining_kinds, texts, write_memory

pytestmark = pytest.mark.django_db

PROFILE = "agents/ava/memory/profile.md"
PLANS = "Plans offsites and budgets for the Lisbon team"
REPORTS = "Ann wants reports to lead with decisions"
ANN_AVA = "users/ann/memory/by-agent/ava/profile.md"
ANN_BEN = "users/ann/memory/by-agent/ben/profile.md"
SAM_AVA = "users/sam/memory/by-agent/ava/profile.md"


@pytest.fixture
def reports_everywhere(workspace):
    """Ann's fact also in ben's shard of her memory, and (oddly) in sam's memory by ava."""
    write_memory(workspace, ANN_BEN, f"- ({day(3)}) {REPORTS}")
    write_memory(workspace, SAM_AVA, f"- ({day(20)}) Sam is vegetarian", f"- ({day(2)}) {REPORTS}")
    return workspace


def test_delete_keeps_the_fact_restorable_in_history(boss, workspace):
    ref = {"file": PROFILE, "id": fact_identity(PLANS)}
    assert boss.post("/bots/ava/facts/delete/", ref, **HX).status_code == 200
    assert remaining_kinds(PLANS) == {"history"}


def test_delete_and_erase_asks_first_then_leaves_nothing(boss, workspace):
    ref = {"file": PROFILE, "id": fact_identity(PLANS)}
    row = boss.get("/bots/ava/", {"tab": "own"})
    assert "/bots/ava/facts/erase/?file=" in row.content.decode()

    confirm = boss.get("/bots/ava/facts/erase/", ref, **HX)
    assert confirm.content.decode().lstrip().startswith('<li class="fact editing"')
    assert f"Erase {PLANS} from everywhere in this workspace?" in plain(confirm)
    assert PLANS in (workspace / PROFILE).read_text()  # asking changes nothing
    page = boss.get("/bots/ava/facts/erase/", ref)  # without JavaScript: a page of its own
    assert "<html" in page.content.decode() and "Delete and erase" in plain(page)

    erased = boss.post("/bots/ava/facts/erase/", ref, **HX)
    assert erased.status_code == 200
    assert plain(erased).startswith(f"Erased “{PLANS}” from everywhere in this workspace: 1 copy")
    assert PLANS not in (workspace / PROFILE).read_text()
    assert remaining(PLANS) == []
    history = boss.get("/bots/ava/history/")
    assert PLANS not in history.content.decode()
    assert f"erased {day(0)} by boss" in plain(history)


def test_a_person_erases_their_own_memory_across_every_bot(ann, reports_everywhere):
    ref = {"file": ANN_AVA, "id": fact_identity(REPORTS)}
    confirm = ann.get("/bots/ava/facts/erase/", ref, **HX)
    assert "from every bot’s memory about you?" in plain(confirm)

    erased = ann.post("/bots/ava/facts/erase/", ref, **HX)

    assert "2 copies deleted" in plain(erased)
    assert REPORTS not in (reports_everywhere / ANN_AVA).read_text()
    assert REPORTS not in (reports_everywhere / ANN_BEN).read_text()
    # Sam's memory is not Ann's to change: that copy stays, and only it.
    assert {line.split()[1].split(":")[0] for line in remaining(REPORTS)} == {
        SAM_AVA,
        "users/sam/memory/by-agent/ava/history.jsonl",
    }


def test_a_person_cannot_erase_anothers_memory(ann, reports_everywhere):
    ref = {"file": SAM_AVA, "id": fact_identity(REPORTS)}
    before = (reports_everywhere / SAM_AVA).read_bytes()
    for answer in (
        ann.get("/bots/ava/facts/erase/", ref, **HX),
        ann.post("/bots/ava/facts/erase/", ref, **HX),
    ):
        assert answer.status_code == 403
    assert (reports_everywhere / SAM_AVA).read_bytes() == before


def test_erasing_a_fact_that_is_gone_says_so(boss, workspace):
    ref = {"file": PROFILE, "id": fact_identity("Never said")}
    answer = boss.post("/bots/ava/facts/erase/", ref, **HX)
    assert answer.status_code == 404
    assert texts(answer) == []
