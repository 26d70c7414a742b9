"""What learning one exchange asks of the database: the scope is synced once, for the known
facts (each save's duplicate check then reads the file rows in the statement that takes its
lock, memstore/store/prewrite.py, and syncs only if a file changed since), and the people's
controls are read once for the run plus once inside each save (the write path's own check, in
that same statement), not again for the known facts (the run's one read gives the same rule). A
hand edit made before the exchange is still a known duplicate."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memstore.index.stale import _SYNC_QUERY
from memstore.learning.pipeline import _run_for, exchange_learn
from memstore.llm.config import learner_config, model_client
from memstore.models import Exchange, PersonSettings
from memstore.rules.controls import _CONTROLS_SQL, controls_read
from memstore.rules.withheld import withholding_for
from tests.helpers import direct, facts_on_disk, group, ok, write_memory
from tests.memstore.learning.test_pipeline import submit

pytestmark = pytest.mark.django_db
MONTH = f"{timezone.localdate():%Y-%m}"


def _learned(receipt) -> list[str]:
    config = learner_config()
    with CaptureQueriesContext(connection) as queries:
        assert exchange_learn(exchange_id=receipt.id, client=model_client(config), config=config)
    return [q["sql"] for q in queries]


@pytest.mark.parametrize("room", [direct, group])
def test_two_saves_sync_the_scope_once_and_read_controls_once_each(learning, memory_root, room):
    learning.push(ok("profile: Lives in Lisbon\nlog: Moved to Lisbon last week"))
    sql = _learned(submit(room()))
    syncs = [s for s in sql if s.startswith(_SYNC_QUERY.split(" WHERE")[0])]
    controls = [s for s in sql if _CONTROLS_SQL.split(" FROM")[0] in s]
    assert (len(syncs), len(controls)) == (1, 3)
    texts = sorted(f.text for facts in facts_on_disk(memory_root).values() for f in facts)
    assert texts == ["Lives in Lisbon", "Moved to Lisbon last week"]


def test_a_hand_edit_before_the_exchange_is_still_a_known_duplicate(learning, memory_root):
    write_memory(
        memory_root, f"agents/ada/memory/log/{MONTH}.md", "- (2026-11-01) Ships on Fridays"
    )
    learning.push(ok("profile: The team meets on Mondays\nlog: Ships on Fridays"))
    _learned(submit(group()))
    lines = [f.text for facts in facts_on_disk(memory_root).values() for f in facts]
    assert sorted(lines) == ["Ships on Fridays", "The team meets on Mondays"]


@pytest.mark.parametrize("room", [direct, group])
def test_the_runs_one_read_gives_the_rule_the_known_facts_read_gave(learning, room):
    from django.contrib.auth.models import User

    PersonSettings.objects.create(
        user=User.objects.create_user("alice"), paused=False, excluded_topics=["cardiology"]
    )
    PersonSettings.objects.create(user=User.objects.create_user("bob"), excluded_topics=["golf"])
    exchange = Exchange.objects.get(pk=submit(room(person="alice")).id)
    run = _run_for(exchange, learner_config())
    person = "alice" if exchange.room_kind == "direct" else None
    assert run.withholding == withholding_for(person=person)
    assert run.person == controls_read(people=["alice"])["alice"]
