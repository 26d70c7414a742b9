"""The places an erase cleans and verify-forgotten checks, listed once (`privacy.stores`): every
text column of the models is placed, and the stores added for notes, review decisions and
other files reach exactly as far as the erase may (a person, a bot, everything)."""

import json

import pytest
from django.apps import apps
from django.db import models

from memstore.facts import markdown
from memstore.models import LearningEvent, ProposalReview
from memstore.privacy.erase import fact_erase, reach_of_bot, reach_of_person, reach_of_workspace
from memstore.privacy.file_stores import note_of
from memstore.privacy.stores import KINDS, STORES, TEXT_FREE
from memstore.prompt.notes import note_read, note_save, note_versions
from memstore.registry.bots import bot_create
from memstore.rooms.idempotency import idempotent_call
from tests.helpers import exchange_stored, remaining, remaining_kinds, write_facts

pytestmark = pytest.mark.django_db
FACT = "Bea plays the cello on Sundays"
FACT_ID = markdown.fact_identity(FACT)
BEA_ADA = "users/bea/memory/by-agent/ada/profile.md"
TEXTUAL = (models.CharField, models.TextField, models.JSONField, models.BinaryField)


def test_every_text_column_of_the_models_is_placed_once():
    columns = {
        f"{model.__name__}.{field.name}"
        for model in apps.get_app_config("memstore").get_models()
        for field in model._meta.concrete_fields
        if isinstance(field, TEXTUAL)
    }
    held = [c for store in STORES for c in store.holds if "." in c and " " not in c]
    assert sorted(held) == sorted(set(held))  # no column in two stores
    assert set(held) & set(TEXT_FREE) == set()
    assert columns - set(held) - set(TEXT_FREE) == set()  # a new column must be placed
    assert set(TEXT_FREE) - columns == set()  # and nothing listed that is gone
    assert len(KINDS) == len(set(KINDS))


@pytest.mark.parametrize(
    ("rel", "note"),
    [
        ("workspace/notes/about.md", "workspace/notes/about.md"),
        ("users/bea/notes/about-you.md", "users/bea/notes/about-you.md"),
        ("agents/ada/notes/about-me.md", "agents/ada/notes/about-me.md"),
        (
            "users/bea/notes/versions/about-you/20261101T101010123456Z.md",
            "users/bea/notes/about-you.md",
        ),
        ("workspace/notes/versions/about/20261101T101010123456Z.md", "workspace/notes/about.md"),
        ("users/bea/memory/by-agent/ada/profile.md", None),
        ("users/bea/notes/other/deeper/x.md", None),
        ("notes/about.md", None),
        ("users/bea/controls.jsonl", None),
    ],
)
def test_note_of_names_the_note_a_file_belongs_to(rel, note):
    assert note_of(rel) == note


def notes_with_the_fact() -> None:
    """Every kind of note said the fact once and then something else (a version keeps it)."""
    for kind, name in (("workspace", ""), ("you", "bea"), ("you", "cy"), ("me", "ada")):
        note_save(kind=kind, name=name, text=f"Good to know: {FACT}.")
        note_save(kind=kind, name=name, text=f"Still true: {FACT.lower()}!")


def notes_holding() -> set[str]:
    found = set()
    for kind, name in (("workspace", ""), ("you", "bea"), ("you", "cy"), ("me", "ada")):
        texts = [note_read(kind=kind, name=name).text]
        texts += [v.text for v in note_versions(kind=kind, name=name)]
        if any(FACT.lower() in t.lower() for t in texts):
            found.add(f"{kind}:{name}")
    return found


def test_a_person_erase_redacts_their_notes_and_versions_only(memory_root):
    write_facts(memory_root, BEA_ADA, FACT)
    notes_with_the_fact()
    assert {line.split()[0] for line in remaining(FACT)} >= {"file", "note"}

    erased = fact_erase(reach=reach_of_person("bea"), text=FACT, by="bea", via="console")

    assert erased.counts["note"] == 2  # the note and the version that said it (one was "")
    assert notes_holding() == {"workspace:", "you:cy", "me:ada"}
    assert note_read(kind="you", name="bea").text == "Still true: [erased]!\n"
    assert [v.text for v in note_versions(kind="you", name="bea")] == [
        "Good to know: [erased].\n",
        "",
    ]


def test_a_bot_erase_redacts_its_own_about_me_and_staff_every_note(memory_root):
    write_facts(memory_root, "agents/ada/memory/profile.md", FACT)
    notes_with_the_fact()
    fact_erase(reach=reach_of_bot("ada"), fact_id=FACT_ID, by="ada", via="api")
    assert notes_holding() == {"workspace:", "you:bea", "you:cy"}
    fact_erase(reach=reach_of_workspace(), text=FACT, by="ops", via="tool")
    assert notes_holding() == set()
    assert remaining(FACT) == []


def test_review_decisions_are_redacted_within_the_reach(memory_root):
    write_facts(memory_root, BEA_ADA, FACT)
    for person in ("bea", "cy"):
        exchange_stored(bot="ada", message=FACT, person=person)
    for event in LearningEvent.objects.all():
        ProposalReview.objects.create(
            source="learner",
            ref=str(event.pk),
            bot="ada",
            decision="accepted",
            text=FACT,
            by=event.person,
        )
    assert "review" in remaining_kinds(FACT)

    fact_erase(reach=reach_of_person("bea"), text=FACT, by="bea", via="console")

    texts = dict(ProposalReview.objects.values_list("by", "text"))
    assert texts == {"bea": "[erased]", "cy": FACT}
    assert [line.split()[0] for line in remaining(FACT)] == ["exchange", "learning", "review"]


def test_a_person_erase_redacts_the_idempotent_reply_about_their_memory(memory_root):
    write_facts(memory_root, BEA_ADA, FACT)
    bot_create(slug="ada")
    body = {"id": FACT_ID, "text": FACT, "scope": "user", "scope_name": "bea", "file": BEA_ADA}
    other = {"id": FACT_ID, "text": FACT, "scope": "bot", "scope_name": "ada", "file": "x"}
    for key, reply in (("k-bea", body), ("k-own", other)):
        idempotent_call(bot="ada", key=key, request={"k": key}, call=lambda r=reply: (201, r))

    fact_erase(reach=reach_of_person("bea"), fact_id=FACT_ID, by="bea", via="tool")

    replay = idempotent_call(bot="ada", key="k-bea", request={"k": "k-bea"}, call=lambda: 1 / 0)
    assert (replay.status, replay.replayed, replay.body["text"]) == (201, True, "[erased]")
    # The reply about ada's own memory is not bea's to erase.
    assert [line.split()[0] for line in remaining(FACT)] == ["reply"]


def test_other_files_under_the_root_are_found_and_redacted_by_owner(memory_root):
    write_facts(memory_root, "agents/ada/memory/profile.md", FACT)
    failures = memory_root / "failures.jsonl"
    lines = [
        {"bot": bot, "op": "remember", "message": f"Refused: {FACT}"} for bot in ("ada", "ben")
    ]
    failures.write_text("".join(json.dumps(line) + "\n" for line in lines))
    stray = memory_root / "users/_misnamed/memory/by-agent/ada/profile.md"  # never read
    write_facts(memory_root, "users/_misnamed/memory/by-agent/ada/profile.md", FACT)
    hidden = memory_root / ".git/objects/ab"
    hidden.parent.mkdir(parents=True)
    hidden.write_text(FACT)  # hidden folders are nobody's text
    assert [line.split()[:2] for line in remaining(FACT) if line.startswith("other")] == [
        ["other", "failures.jsonl"],
        ["other", "users/_misnamed/memory/by-agent/ada/profile.md"],
    ]

    fact_erase(reach=reach_of_bot("ada"), text=FACT, by="ada", via="api")

    records = [json.loads(line) for line in failures.read_text().splitlines()]
    assert [r["message"] for r in records] == ["Refused: [erased]", f"Refused: {FACT}"]
    fact_erase(reach=reach_of_workspace(), text=FACT, by="ops", via="tool")
    assert remaining(FACT) == []
    assert FACT not in stray.read_text()
