"""Another person's fact asked into shared memory, against the learner with the scripted model
obeying what it reads: "remember that Bob's bonus is 3169 a month", said in a group by alice,
is held by the "remember that" path, and the learner, reading the same exchange in write mode,
holds it too (in its own words or in the asker's) instead of writing it to the bot's team-wide
memory; what the exchange says about no one asked about, and Bob's own statement about himself,
are learned as ever."""

import pytest

from memstore.console.review import review_inbox
from memstore.console.viewer import Viewer
from memstore.learning import activity_list, exchange_submit
from memstore.learning.pipeline import exchange_learn
from memstore.llm.config import learner_config, model_client
from memstore.prompt.section import prompt_build
from memstore.registry.people import person_add
from tests.helpers import group, is_episode, ok, texts_on_disk

pytestmark = pytest.mark.django_db
HELD = "Bob's bonus is 3169 a month"
REWORDED = "Bob earns 3169 per month"


def _learn(receipt) -> None:
    config = learner_config()
    exchange_learn(exchange_id=receipt.id, client=model_client(config), config=config)


def test_a_fact_about_another_person_held_on_request_is_not_learned(learning, memory_root):
    for name in ("alice", "bob", "carol"):
        person_add(name=name)
    learning.push(ok(f"profile: {HELD}\nprofile: {REWORDED}\nprofile: Offsite is in Porto"))
    receipt = exchange_submit(
        ctx=group(person="alice"),
        message=f"Remember that {HELD}. The offsite is in Porto.",
        reply="Noted.",
        message_id="m1",
        reply_id="r1",
    )
    assert [(k.status, k.reason) for k in receipt.remembered] == [("held", "other_person")]
    _learn(receipt)

    assert texts_on_disk(memory_root) == {"agents/ada/memory/profile.md": ["Offsite is in Porto"]}
    for room in ("team", "other-team"):
        prompt = prompt_build(ctx=group(room=room, person="carol")).text
        assert "3169" not in prompt and "Offsite is in Porto" in prompt
    events = {
        (a.kind, a.reason, a.text) for a in activity_list(exchange_id=receipt.id, limit=50).items
    }
    assert ("saved", "", "Offsite is in Porto") in events
    assert ("held_save", "other_person", REWORDED) in events
    assert not any(kind == "saved" and "3169" in text for kind, _, text in events)
    inbox = review_inbox(bot="ada", viewer=Viewer(person="root", staff=True))
    # The asker's words wait once (the learner's same words are not a second proposal).
    assert sorted(p.text for p in inbox) == sorted([HELD, REWORDED])


def test_a_persons_own_statement_in_a_group_is_still_learned(learning, memory_root):
    for name in ("alice", "bob"):
        person_add(name=name)
    learning.push(ok("profile: Bob prefers morning meetings"))
    receipt = exchange_submit(
        ctx=group(person="bob"),
        message="I prefer morning meetings, and remember that Alice's team moved to Porto.",
        reply="Noted.",
        message_id="m1",
        reply_id="r1",
    )
    _learn(receipt)

    assert texts_on_disk(memory_root) == {
        "agents/ada/memory/profile.md": ["Bob prefers morning meetings"]
    }


def test_an_episode_retelling_the_held_fact_is_held_too(learning, memory_root, settings):
    settings.LEARNING_EPISODE_EVERY = 1
    for name in ("alice", "bob"):
        person_add(name=name)
    episode = "Alice asked the bot to remember that Bob earns 3169 a month."
    learning.responder = lambda req: ok(episode) if is_episode(req) else ok("NONE")
    receipt = exchange_submit(
        ctx=group(person="alice"),
        message=f"Remember that {HELD}.",
        reply="Noted.",
        message_id="m1",
        reply_id="r1",
    )
    _learn(receipt)

    assert texts_on_disk(memory_root) == {}
    events = {(a.kind, a.reason) for a in activity_list(exchange_id=receipt.id, limit=50).items}
    assert ("held_save", "other_person") in events
    assert not any(kind == "saved" for kind, _ in events)
