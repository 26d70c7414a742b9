"""What the learner leaves behind: its `remove:` forgets like any forget (history keeps the line,
so it can be restored), and an erase redacts the fact from the exchange it was learned from,
the plan and the learning events (checked with `manage.py memory verify-forgotten`)."""

import itertools

import pytest

from memstore.learning import exchange_submit
from memstore.learning.pipeline import exchange_learn
from memstore.llm.config import learner_config, model_client
from memstore.models import Exchange, LearningEvent
from memstore.privacy.erase import fact_erase, reach_of_person
from tests.helpers import direct, ok, remaining, remaining_kinds, write_memory

pytestmark = pytest.mark.django_db
_ids = itertools.count(1)
ALICE = "users/alice/memory/by-agent/ada"


def learn(message: str) -> int:
    n = next(_ids)
    receipt = exchange_submit(
        ctx=direct(), message=message, reply="Noted.", message_id=f"m{n}", reply_id=f"r{n}"
    )
    config = learner_config()
    exchange_learn(exchange_id=receipt.id, client=model_client(config), config=config)
    return receipt.id


def test_a_learner_remove_keeps_the_line_in_history(learning, memory_root):
    write_memory(
        memory_root, f"{ALICE}/profile.md", "- (2026-01-02) Lives in Austin <!-- via=learner -->"
    )
    learning.push(ok("remove: Lives in Austin"))
    learn("I left Austin for good")
    assert "Lives in Austin" not in (memory_root / f"{ALICE}/profile.md").read_text()
    # Restorable from history; the plan and the "removed" event quote it.
    assert remaining_kinds("Lives in Austin") == {"history", "exchange", "learning"}
    fact_erase(reach=reach_of_person("alice"), text="Lives in Austin", by="alice", via="tool")
    assert remaining("Lives in Austin") == []


def test_erasing_a_learned_fact_redacts_what_the_learner_stored(learning, memory_root):
    learning.push(ok("profile: Takes insulin every morning"))
    exchange_id = learn("Note that I take insulin every morning; takes insulin every morning.")
    assert remaining_kinds("Takes insulin every morning") == {
        "file", "index", "history", "exchange", "learning",
    }  # fmt: skip

    fact_erase(
        reach=reach_of_person("alice"), text="Takes insulin every morning", by="alice", via="tool"
    )

    assert remaining("Takes insulin every morning") == []
    exchange = Exchange.objects.get(pk=exchange_id)
    # The fact's own words are redacted wherever they appear; other wording is not the fact.
    assert exchange.message == "Note that I take insulin every morning; [erased]."
    assert all(
        "insulin" not in e.text.lower() for e in LearningEvent.objects.filter(exchange=exchange)
    )
