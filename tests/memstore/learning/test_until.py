"""The learner and `until=` (issue 23 part 3): the extraction instructions give today's date and
ask for until= only on plainly temporary facts; a scripted model that follows them gets its
temporary fact saved with that last day, and a lasting one without; an until= that is not a day
from the exchange's to a year after it is dropped (the fact kept)."""

import re
from datetime import date, timedelta

import pytest
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from memstore.learning import exchange_submit
from memstore.learning.parse import reply_parse
from memstore.learning.pipeline import exchange_learn
from memstore.llm.config import learner_config, model_client
from memstore.prompt.section import prompt_build
from tests.helpers import Reply, direct, facts_on_disk

pytestmark = pytest.mark.django_db
TODAY = timezone.localdate()
ALICE = "users/alice/memory/by-agent/ada/log"


def _learn(message: str) -> str:
    n = len(message)
    receipt = exchange_submit(
        ctx=direct(), message=message, reply="Noted.", message_id=f"m{n}", reply_id=f"r{n}"
    )
    config = learner_config()
    return exchange_learn(exchange_id=receipt.id, client=model_client(config), config=config)


def _follows_the_instructions(request: dict) -> Reply:
    """A model that does what the system prompt says: a temporary fact gets until= the last
    day, counted from the date the instructions give; a lasting one gets none."""
    system = request["messages"][0]["content"]
    assert "until=YYYY-MM-DD" in system and "plainly temporary" in system
    today = date.fromisoformat(re.search(r"counted from today, (\d{4}-\d{2}-\d{2})", system)[1])
    message = request["messages"][1]["content"]
    if "I'm travelling to Lisbon next week" in message:
        end = today + timedelta(days=13 - today.weekday())  # the Sunday of next week
        return Reply(f"log: Is travelling to Lisbon next week {{until={end.isoformat()}}}")
    return Reply("profile: Lives in Porto")


def test_a_temporary_fact_is_saved_with_its_last_day_and_a_lasting_one_without(
    learning, memory_root
):
    learning.responder = _follows_the_instructions
    assert _learn("I'm travelling to Lisbon next week") == "done"
    assert _learn("I live in Porto") == "done"
    on_disk = facts_on_disk(memory_root)
    [trip] = on_disk[f"{ALICE}/{TODAY:%Y-%m}.md"]
    end = TODAY + timedelta(days=13 - TODAY.weekday())
    assert (trip.text, trip.meta.get("until")) == (
        "Is travelling to Lisbon next week",
        end.isoformat(),
    )
    [home] = on_disk["users/alice/memory/by-agent/ada/profile.md"]
    assert "until" not in home.meta
    section = prompt_build(ctx=direct()).text
    assert "Lisbon" in section  # true until its last day
    system = learning.requests[0]["messages"][0]["content"]
    assert f"counted from today, {TODAY.isoformat()} ({TODAY:%A})" in system


@pytest.mark.parametrize(
    "value",
    [
        "2000-01-01",  # before the exchange
        (TODAY + timedelta(days=400)).isoformat(),  # past a year
        "2026-02-30",
        "friday",
        "",
    ],
)
def test_an_until_that_is_not_a_day_ahead_is_dropped_and_the_fact_kept(value):
    parsed = reply_parse(
        f"log: Is travelling to Lisbon {{until={value} type=context}}", known={}, today=TODAY
    )
    [proposal] = parsed.proposals
    assert (proposal.text, proposal.meta) == ("Is travelling to Lisbon", {"type": "context"})


def test_the_until_day_itself_and_a_year_ahead_are_kept():
    for day in (TODAY, TODAY + timedelta(days=366)):
        parsed = reply_parse(f"note: On call {{until={day.isoformat()}}}", known={}, today=TODAY)
        assert parsed.proposals[0].meta == {"until": day.isoformat()}


@given(
    st.dates(min_value=date(1990, 1, 1), max_value=date(2100, 12, 31)),
    st.dates(min_value=date(1990, 1, 1), max_value=date(2100, 12, 31)),
)
def test_a_learned_until_is_kept_exactly_when_it_is_from_the_exchange_to_a_year_after(day, today):
    parsed = reply_parse(f"log: Is away {{until={day.isoformat()}}}", known={}, today=today)
    [proposal] = parsed.proposals
    kept = today <= day <= today + timedelta(days=366)
    assert proposal.meta == ({"until": day.isoformat()} if kept else {})
    assert proposal.text == "Is away"
