"""The bounds of the memory-sources records (`memstore.learning.sources`): a served section is
kept SOURCES_KEEP_DAYS and a recall counts within SOURCES_RECALL_WINDOW_SECONDS; past them
nothing is credited and the rows are dropped, on a report and on the daily upkeep tick."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memstore.calls.prompt import prompt_or_unavailable
from memstore.calls.recall import recall_answer
from memstore.learning import exchange_submit
from memstore.learning.sources import sources_prune
from memstore.models import ServedPrompt, ServedRecall
from tests.helpers import group, write_memory

pytestmark = pytest.mark.django_db
FACT = "Standups move to 9:30 on Mondays"


@pytest.fixture
def served(memory_root):
    """ada's prompt section and a recall served in the group room `team`."""
    write_memory(memory_root, "agents/ada/memory/profile.md", f"- (2026-11-01) {FACT}")
    answer = prompt_or_unavailable(open_context=group)
    assert [f.text for f in recall_answer(ctx=group(), query="standups").value.items] == [FACT]
    return answer.digest


def report(n: int, digest: str = ""):
    return exchange_submit(
        ctx=group(),
        message="When is standup?",
        reply="9:30 on Mondays.",
        message_id=f"m{n}",
        reply_id=f"r{n}",
        digest=digest,
    ).sources


def test_within_their_bounds_the_section_and_the_recall_are_credited(served):
    sources = report(1, served)
    assert (sources.retrieved, sources.injected, sources.digest, sources.note) == (1, 1, served, "")


def test_a_section_past_keeping_is_not_credited_and_is_dropped(served, settings):
    ServedPrompt.objects.update(served_at=timezone.now() - timedelta(days=8))
    sources = report(1, served)
    assert sources.injected == 0
    assert f"in the last {settings.SOURCES_KEEP_DAYS} days" in sources.note
    assert ServedPrompt.objects.count() == 0


def test_a_recall_past_the_window_is_not_retrieved(served, settings):
    settings.SOURCES_RECALL_WINDOW_SECONDS = 60
    ServedRecall.objects.update(at=timezone.now() - timedelta(seconds=61))
    assert report(1).retrieved == 0
    assert ServedRecall.objects.count() == 0


def test_the_daily_prune_bounds_rooms_that_never_report(served):
    long_ago = timezone.now() - timedelta(days=30)
    ServedPrompt.objects.update(served_at=long_ago)
    ServedRecall.objects.update(at=long_ago)
    sources_prune()
    assert (ServedPrompt.objects.count(), ServedRecall.objects.count()) == (0, 0)
