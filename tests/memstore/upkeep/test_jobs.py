"""The periodic job queues one pass per bot only when upkeep or synthesis is switched on, never
twice while one is waiting; `manage.py upkeep` runs a pass in the foreground."""

import json

import pytest
from django.core.management.base import CommandError
from django.db import connection

from memstore.upkeep.jobs import upkeep_enqueue_all
from tests.helpers import log, run_command, synced, tree

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_queue():
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE procrastinate_jobs, procrastinate_periodic_defers CASCADE")


def queued() -> list[tuple[str, dict]]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT task_name, args::text FROM procrastinate_jobs ORDER BY id")
        return [(name, json.loads(args)) for name, args in cursor.fetchall()]


def two_bots(root) -> None:
    log(root, "bot", "ada", "2020-01", "- (2020-01-02) Mentioned a cat once <!-- via=learner -->")
    log(root, "bot", "bo", "2020-01", "- (2020-01-02) Likes jazz", bot="bo")


def test_off_by_default_nothing_is_queued(memory_root, settings):
    two_bots(memory_root)
    assert (settings.UPKEEP_MODE, settings.SYNTHESIS_MODE) == ("off", "off")
    assert (upkeep_enqueue_all(), queued()) == (0, [])


def test_one_pass_per_bot_never_twice(memory_root, settings):
    two_bots(memory_root)
    settings.UPKEEP_MODE = "write"
    assert upkeep_enqueue_all() == 2
    assert upkeep_enqueue_all() == 0  # still waiting: the queueing lock holds
    assert queued() == [
        ("memstore.upkeep.store", {"bot": "ada"}),
        ("memstore.upkeep.store", {"bot": "bo"}),
    ]


def test_upkeep_command_reports_then_writes(memory_root):
    two_bots(memory_root)
    before = synced(memory_root)
    out = run_command("upkeep", "ada")
    assert (
        "ada: 1 facts; 0 duplicate(s), 0 contradiction(s), 1 stale; 0 applied, 1 left for people"
        in out
    )
    assert before == tree(memory_root)
    assert "1 applied" in run_command("upkeep", "--all", "--mode", "write")
    with pytest.raises(CommandError):
        run_command("upkeep")
    with pytest.raises(CommandError):
        run_command("upkeep", "ada", "--synthesis")  # no model configured
