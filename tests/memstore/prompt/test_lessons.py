"""Lessons for agents counted as a person would count them: three paraphrases of one lesson
are one recurring lesson whatever order they are read in, and a lesson the learner hears three
times word for word recurs, though its repeats collapse into one fact."""

import itertools

import pytest

from memstore.learning import exchange_submit
from memstore.learning.pipeline import exchange_learn
from memstore.llm.config import learner_config, model_client
from memstore.prompt.lessons import lessons_recurring
from memstore.registry.bots import bot_create
from tests.helpers import FakeModel, group, learner_on, log, ok, texts_on_disk

pytestmark = pytest.mark.django_db

# A says what B says, B what C says; A and C share too few words to be matched directly.
A = "Run the migrations before deploying the API"
B = "Run the migrations first, then deploy the API and check staging"
C = "Deploy the API first, then check staging"


@pytest.mark.parametrize("order", list(itertools.permutations([A, B, C])))
def test_three_paraphrases_are_one_lesson_in_any_order(memory_root, order):
    lines = [f"- (2026-11-03) {text} <!-- type=learning -->" for text in order]
    log(memory_root, "bot", "ava", "2026-11", *lines, "- (2026-11-03) Deploys go out on Tuesdays")
    [lesson] = lessons_recurring(bot="ava")
    assert sorted(f.text for f in lesson.facts) == sorted([A, B, C])
    assert (lesson.text, lesson.times) == (order[-1], 3)  # the newest wording: last in the file


def test_two_paraphrases_are_not_yet_a_recurring_lesson(memory_root):
    lines = [f"- (2026-11-03) {text} <!-- type=learning -->" for text in (A, B)]
    log(memory_root, "bot", "ava", "2026-11", *lines)
    assert lessons_recurring(bot="ava") == []


def test_a_lesson_learned_three_times_word_for_word_recurs(memory_root, settings):
    bot_create(slug="ava")
    model = learner_on(settings, FakeModel())
    try:
        for n in range(3):
            model.push(ok(f"log: {A} {{type=learning}}"))
            receipt = exchange_submit(
                ctx=group(bot="ava"),
                message=f"Staging broke again (#{n}): migrations had not run before the deploy",
                reply="Noted: run the migrations first next time.",
                message_id=f"m{n}",
                reply_id=f"r{n}",
            )
            config = learner_config()
            exchange_learn(exchange_id=receipt.id, client=model_client(config), config=config)
    finally:
        model.close()
    [(path, lines)] = texts_on_disk(memory_root).items()
    assert path.startswith("agents/ava/memory/log/") and lines == [A]  # one fact on disk
    [lesson] = lessons_recurring(bot="ava")
    assert (lesson.text, len(lesson.facts), lesson.times) == (A, 1, 3)
