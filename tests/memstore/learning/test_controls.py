"""The learner honours a person's controls from its next run, set the way a person sets them
(`memstore.rules.controls`, as the About me page and `manage.py people` do), against the scripted
model over HTTP: a pause teaches nothing, an excluded topic is refused in any word form, and
lifting either lets the next run learn again."""

import itertools

import pytest
from django.contrib.auth.models import User

from memstore.learning import activity_list, exchange_submit
from memstore.learning.pipeline import exchange_learn
from memstore.llm.config import learner_config, model_client
from memstore.rules.controls import memory_pause, memory_resume, topic_exclude
from tests.helpers import direct, ok, texts_on_disk

pytestmark = pytest.mark.django_db
_ids = itertools.count(1)
ALICE = "users/alice/memory/by-agent/ada"


def _run(message: str) -> str:
    n = next(_ids)
    receipt = exchange_submit(
        ctx=direct(), message=message, reply="Noted.", message_id=f"c{n}", reply_id=f"d{n}"
    )
    if receipt.status != "queued":
        return f"{receipt.status}:{receipt.reason}"
    config = learner_config()
    return exchange_learn(exchange_id=receipt.id, client=model_client(config), config=config)


def test_a_pause_set_by_the_person_stops_the_next_run_and_resume_restarts_it(learning, memory_root):
    User.objects.create_user("alice")
    memory_pause(person="alice", by="alice", via="console")
    assert _run("I moved to Lisbon") == "skipped:paused"
    assert learning.requests == [] and texts_on_disk(memory_root) == {}
    memory_resume(person="alice", by="alice", via="console")
    learning.push(ok("profile: Lives in Lisbon"))
    assert _run("I moved to Lisbon") == "done"
    assert texts_on_disk(memory_root) == {f"{ALICE}/profile.md": ["Lives in Lisbon"]}


def test_an_excluded_topic_is_refused_by_the_next_run_in_any_word_form(learning, memory_root):
    User.objects.create_user("alice")
    topic_exclude(person="alice", topic="divorce", by="alice", via="console")
    learning.push(
        ok("profile: Got divorced last year\nlog: Is divorcing slowly\nprofile: Works at Acme")
    )
    assert _run("I got divorced last year, I work at Acme") == "done"
    assert texts_on_disk(memory_root) == {f"{ALICE}/profile.md": ["Works at Acme"]}
    refused = [a for a in activity_list(limit=50).items if a.kind == "refused"]
    assert sorted(a.reason for a in refused) == ["topic", "topic"]
