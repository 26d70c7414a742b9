"""Contradiction candidates about one subject across the bot's whole store: a fact in a
person's memory and one in a project's (or in the profile and a month's log) are put to the
model side by side when they speak of the same thing with different values, though their words
overlap too little to count as alike."""

import pytest

from memstore.models import Proposal
from memstore.upkeep.run import upkeep_run
from tests.helpers import day, log, ok, profile

pytestmark = pytest.mark.django_db

PREFERS = "Prefers the standup at 9:30"
MOVED = "The standup moved to 10:00 from December"
LEARNED = "<!-- via=learner -->"


def _pairs_shown(fake_model) -> list[tuple[str, str]]:
    """The (A, B) texts of every pair the model was shown."""
    shown = []
    for request in fake_model.requests:
        lines = request["messages"][1]["content"].splitlines()
        for a, b in zip(lines, lines[1:], strict=False):
            if a[:1].isdigit() and b.lstrip().startswith("B ("):
                shown.append((a.split("): ", 1)[1], b.split("): ", 1)[1]))
    return shown


def test_the_model_sees_one_subject_across_scopes_and_tiers(memory_root, client, fake_model):
    profile(memory_root, "user", "ann", f"- ({day(40)}) {PREFERS} {LEARNED}")
    log(memory_root, "project", "apollo", f"{day(2):%Y-%m}", f"- ({day(2)}) {MOVED}")
    profile(memory_root, "bot", "ada", f"- ({day(9)}) Writes the weekly report on Fridays")
    fake_model.push(ok("1: conflict - the standup moved to 10:00"))

    report = upkeep_run(bot="ada", mode="report", client=client)

    assert _pairs_shown(fake_model) == [(PREFERS, MOVED)]
    assert report.contradictions == 1
    [proposal] = Proposal.objects.filter(origin="contradiction", status=Proposal.PROPOSED)
    assert proposal.reason == "the standup moved to 10:00"


def test_facts_that_agree_on_the_value_are_not_asked_about(memory_root, client, fake_model):
    profile(memory_root, "user", "ann", f"- ({day(40)}) Prefers the standup at 9:30 {LEARNED}")
    log(memory_root, "bot", "ada", f"{day(2):%Y-%m}", f"- ({day(2)}) The standup is at 9:30 daily")
    upkeep_run(bot="ada", mode="report", client=client)
    assert fake_model.requests == []
