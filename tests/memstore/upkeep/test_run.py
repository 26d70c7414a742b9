"""One upkeep pass: duplicates merged, contradictions judged by the (scripted) model, stale
learned facts archived; report mode changes nothing; facts saved on purpose are never touched."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memstore.errors import FactProtected
from memstore.facts import markdown
from memstore.facts.history import history_read
from memstore.facts.paths import Scope
from memstore.models import Proposal
from memstore.store.services import fact_restore
from memstore.upkeep.guard import fact_archive, fact_protected
from memstore.upkeep.run import upkeep_run
from memstore.upkeep.store import store_facts
from memstore.upkeep.usage import usage_flush, usage_note
from tests.helpers import day, facts_on_disk, log, ok, profile, synced, tree

pytestmark = pytest.mark.django_db

SHARD = Scope("bot", "ada").shard("ada")
LEARNED = "<!-- via=learner -->"
MONTH = f"{day(1):%Y-%m}"


def texts(root) -> list[str]:
    return sorted(f.text for facts in facts_on_disk(root).values() for f in facts)


def links(root) -> dict[str, list]:
    return {
        f.text: markdown.links_of(f)
        for facts in facts_on_disk(root).values()
        for f in facts
        if markdown.links_of(f)
    }


@pytest.mark.parametrize(
    ("meta", "protected"),
    [
        ({}, True),
        ({"via": "api"}, True),
        ({"via": "console"}, True),
        ({"via": "learner", "pin": "true"}, True),
        ({"via": "learner", "pin": "false"}, False),
        ({"via": "learner"}, False),
        ({"via": "synthesis"}, False),
    ],
)
def test_what_counts_as_saved_on_purpose(meta, protected):
    assert protected == fact_protected(meta)


def test_duplicates_the_older_learned_copy_is_archived_and_restorable(memory_root):
    log(
        memory_root,
        "bot",
        "ada",
        MONTH,
        f"- ({day(5)}) Backups run nightly at 02:00 UTC {LEARNED}",
        f"- ({day(1)}) backups run nightly at 02:00 utc. {LEARNED}",
    )
    report = upkeep_run(bot="ada", mode="write")
    assert (report.duplicates, report.applied) == (1, 1)
    assert texts(memory_root) == ["backups run nightly at 02:00 utc."]
    old = markdown.fact_identity("Backups run nightly at 02:00 UTC")
    assert {"backups run nightly at 02:00 utc.": [("supersedes", old)]} == links(memory_root)
    [removal] = [c for c in history_read(memory_root, SHARD) if c.op == "remove"]
    assert (removal.by, removal.via) == ("upkeep", "upkeep")
    fact_restore(change=removal)
    assert len(texts(memory_root)) == 2


def test_a_duplicate_of_a_deliberate_fact_keeps_the_deliberate_one(memory_root):
    log(
        memory_root,
        "bot",
        "ada",
        MONTH,
        f"- ({day(5)}) Backups run nightly at 02:00 UTC",
        f"- ({day(1)}) backups run nightly at 02:00 utc. {LEARNED}",
    )
    upkeep_run(bot="ada", mode="write")
    assert texts(memory_root) == ["Backups run nightly at 02:00 UTC"]
    assert links(memory_root) == {}  # the deliberate line is not even given a link


def test_facts_saved_on_purpose_are_never_touched(memory_root, client, fake_model):
    # Every kind of candidate, each involving only deliberate facts; the model says "conflict".
    fake_model.responder = lambda request: ok(
        "\n".join(f"{n}: conflict - changed" for n in range(1, 11))
    )
    profile(
        memory_root,
        "bot",
        "ada",
        f"- ({day(300)}) Office is in Porto <!-- via=learner pin=true -->",
        f"- ({day(1)}) Office is in Lisbon",
    )
    log(
        memory_root,
        "bot",
        "ada",
        "2020-01",
        "- (2020-01-02) Backups run nightly at 02:00 UTC <!-- via=api -->",
        "- (2020-01-05) backups run nightly at 02:00 utc. <!-- via=learner pin=yes -->",
        "- (2020-01-07) Minor detail about lunch <!-- via=learner pin=1 -->",
        "- (2020-01-07) Standup moved to 10:00 <!-- via=console -->",
        "- (2020-01-08) Standup is at 9:30 <!-- via=tool -->",
    )
    before = synced(memory_root)
    report = upkeep_run(bot="ada", mode="write", client=client)
    assert before == tree(memory_root)
    assert report.applied == 0
    assert report.contradictions >= 1  # found and left for a person
    for fact in store_facts(shards=[SHARD]):
        with pytest.raises(FactProtected):
            fact_archive(fact=fact, by="upkeep", via="upkeep")
    assert before == tree(memory_root)


def test_contradiction_newer_supersedes_older_and_is_asked_once(memory_root, client, fake_model):
    profile(
        memory_root,
        "bot",
        "ada",
        f"- ({day(30)}) Office is in Porto {LEARNED}",
        f"- ({day(1)}) Office is in Lisbon {LEARNED}",
    )
    fake_model.push(ok("1: conflict - the office moved"))
    report = upkeep_run(bot="ada", mode="write", client=client)
    assert (report.model_calls, report.contradictions, report.applied) == (1, 1, 1)
    assert texts(memory_root) == ["Office is in Lisbon"]
    porto = markdown.fact_identity("Office is in Porto")
    assert {"Office is in Lisbon": [("supersedes", porto)]} == links(memory_root)
    assert "Office is in Porto" in fake_model.requests[0]["messages"][1]["content"]
    again = upkeep_run(bot="ada", mode="write", client=client)
    assert (again.model_calls, len(fake_model.requests)) == (0, 1)


def test_a_contradiction_with_a_deliberate_older_fact_is_left_for_a_person(
    memory_root, client, fake_model
):
    profile(
        memory_root,
        "bot",
        "ada",
        f"- ({day(30)}) Office is in Porto",
        f"- ({day(1)}) Office is in Lisbon {LEARNED}",
    )
    fake_model.push(ok("1: conflict - the office moved"))
    before = synced(memory_root)
    upkeep_run(bot="ada", mode="write", client=client)
    assert before == tree(memory_root)
    [open_] = Proposal.objects.filter(status=Proposal.PROPOSED)
    assert (open_.origin, open_.reason) == ("contradiction", "the office moved")


def test_compatible_pairs_are_remembered_and_not_asked_again(memory_root, client, fake_model):
    profile(
        memory_root,
        "bot",
        "ada",
        f"- ({day(30)}) Office is in central Porto {LEARNED}",
        f"- ({day(1)}) Office parking is free in Porto {LEARNED}",
    )
    fake_model.push(ok("1: compatible"))
    upkeep_run(bot="ada", mode="write", client=client)
    upkeep_run(bot="ada", mode="write", client=client)
    assert len(fake_model.requests) == 1
    assert len(texts(memory_root)) == 2


def test_stale_learned_facts_are_archived(memory_root):
    log(
        memory_root,
        "bot",
        "ada",
        "2020-01",
        f"- (2020-01-02) Mentioned a cat once {LEARNED}",
        "- (2020-01-02) Mentioned a dog once <!-- via=learner importance=0.9 -->",
        f"- (2020-01-03) Asked about parking once {LEARNED}",
        "- (2020-01-04) Wrote the parking policy",
    )
    profile(memory_root, "bot", "ada", f"- (2020-01-02) Lives in Porto {LEARNED}")
    [parking] = [f for f in store_facts(shards=[SHARD]) if "parking once" in f.text]
    usage_note(recalled=[parking])
    usage_flush()
    report = upkeep_run(bot="ada", mode="write")
    assert report.stale == 1
    assert texts(memory_root) == [
        "Asked about parking once",
        "Lives in Porto",
        "Mentioned a dog once",
        "Wrote the parking policy",
    ]


def test_report_mode_changes_nothing_then_write_mode_applies(memory_root):
    log(memory_root, "bot", "ada", "2020-01", f"- (2020-01-02) Mentioned a cat once {LEARNED}")
    before = synced(memory_root)
    report = upkeep_run(bot="ada", mode="report")
    assert (report.stale, report.applied) == (1, 0)
    assert before == tree(memory_root)
    assert upkeep_run(bot="ada", mode="write").applied == 1
    assert texts(memory_root) == []


def test_no_model_call_once_the_daily_budget_is_spent(memory_root, client, fake_model, settings):
    from memstore.llm.budget import budget_charge

    settings.LEARNING_DAILY_TOKENS = 100
    budget_charge(tokens=100)
    profile(
        memory_root,
        "bot",
        "ada",
        f"- ({day(30)}) Office is in Porto {LEARNED}",
        f"- ({day(1)}) Office is in Lisbon {LEARNED}",
    )
    report = upkeep_run(bot="ada", mode="write", client=client, now=timezone.now() + timedelta(0))
    assert (report.model_calls, fake_model.requests) == (0, [])
    assert "budget" in report.notes[0]


def test_two_bots_with_the_same_stale_text_each_get_their_own_proposal(memory_root):
    line = f"- (2020-01-02) Mentioned a cat once {LEARNED}"
    log(memory_root, "bot", "ada", "2020-01", line)
    log(memory_root, "bot", "bo", "2020-01", line, bot="bo")
    log(memory_root, "project", "ops", "2020-01", line)  # ada's shard of a project
    assert (upkeep_run(bot="ada").stale, upkeep_run(bot="bo").stale) == (2, 1)
    assert upkeep_run(bot="bo").stale == 0  # a re-run repeats nothing
    held = sorted(
        (p.bot, p.scope_key, p.evidence[0]["bot"]) for p in Proposal.objects.filter(origin="stale")
    )
    assert held == [
        ("ada", "bot:ada", "ada"),
        ("ada", "project:ops", "ada"),
        ("bo", "bot:bo", "bo"),
    ]
    assert upkeep_run(bot="bo", mode="write").applied == 1
    assert texts(memory_root) == ["Mentioned a cat once", "Mentioned a cat once"]


def test_the_migration_rekeys_proposals_as_upkeep_keys_them(memory_root):
    import importlib

    migration = importlib.import_module("memstore.migrations.0015_proposal_keys_by_bot_and_shard")
    log(memory_root, "bot", "ada", "2020-01", f"- (2020-01-02) Mentioned a cat once {LEARNED}")
    upkeep_run(bot="ada")
    [proposal] = Proposal.objects.all()
    assert migration._key(proposal) == proposal.key
