"""The learner's look-back: an exchange still queued 14 days after it was reported (a stopped
worker) is not learned, and the learning log and the home page's "What failed" say why; a
younger one is learned."""

from datetime import timedelta

import pytest
from django.utils import timezone

from memstore.console.learning import learning_problems
from memstore.console.viewer import Viewer
from memstore.learning import activity_list, exchange_submit
from memstore.learning.pipeline import exchange_learn
from memstore.llm.config import learner_config, model_client
from memstore.models import Exchange
from memstore.registry.bots import bot_create
from tests.helpers import FakeModel, group, learner_on, ok, texts_on_disk

pytestmark = pytest.mark.django_db


def learn_after(days: int, model: FakeModel, n: int) -> str:
    receipt = exchange_submit(
        ctx=group(bot="ava"),
        message=f"The staging database moves to Frankfurt in March (#{n})",
        reply="Noted.",
        message_id=f"m{n}",
        reply_id=f"r{n}",
    )
    reported = timezone.now() - timedelta(days=days)
    Exchange.objects.filter(pk=receipt.id).update(created_at=reported)
    config = learner_config()
    return exchange_learn(exchange_id=receipt.id, client=model_client(config), config=config)


@pytest.fixture
def model(memory_root, settings):
    bot_create(slug="ava")
    model = learner_on(settings, FakeModel())
    yield model
    model.close()


def test_an_exchange_queued_for_14_days_is_not_learned_and_the_log_says_why(model, memory_root):
    model.push(ok("profile: The staging database moves to Frankfurt in March"))
    assert learn_after(14, model, 1) == "skipped"
    assert texts_on_disk(memory_root) == {}
    [event] = activity_list().items
    assert (event.kind, event.reason_label) == ("failed", "queued too long (worker stopped?)")
    assert "Reported 14 days ago and still queued" in event.detail
    assert "was the learning worker stopped?" in event.detail
    # and the home page's "What failed" lists it
    [problem] = learning_problems(viewer=Viewer(person="root", staff=True))
    assert problem.reason_label == "queued too long (worker stopped?)"


def test_a_13_day_old_exchange_is_still_learned(model, memory_root):
    model.push(ok("profile: The staging database moves to Frankfurt in March"))
    assert learn_after(13, model, 2) == "done"
    assert list(texts_on_disk(memory_root).values()) == [
        ["The staging database moves to Frankfurt in March"]
    ]


def test_the_look_back_is_a_setting(model, memory_root, settings):
    settings.LEARNING_MAX_AGE_DAYS = 30
    model.push(ok("profile: The staging database moves to Frankfurt in March"))
    assert learn_after(20, model, 3) == "done"
