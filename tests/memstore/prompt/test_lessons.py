"""Lessons for agents counted as a person would count them: three paraphrases of one lesson
are one recurring lesson whatever order they are read in, and a lesson the learner hears three
times word for word recurs, though its repeats collapse into one fact; so does one a bot saves
three times word for word through its door (`bot_remember`, the API's and MCP's call), each
repeat recorded until the lesson is erased."""

import itertools

import pytest

from memstore.calls.facts import bot_remember
from memstore.facts.markdown import fact_identity
from memstore.learning import exchange_submit
from memstore.learning.pipeline import exchange_learn
from memstore.llm.config import learner_config, model_client
from memstore.models import LessonRepeat
from memstore.privacy.erase import fact_erase, reach_of_bot
from memstore.prompt.lessons import lessons_propose, lessons_recurring
from memstore.registry.bots import bot_create
from tests.helpers import FakeModel, group, learner_on, log, ok, remaining, texts_on_disk

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


def saved(text: str, times: int, *, kind: str = "learning") -> list:
    """`text` saved `times` times in ava's own memory through the bots' door, as the API does."""
    return [
        bot_remember(ctx=group(bot="ava"), text=text, meta={"type": kind}) for _ in range(times)
    ]


def test_a_lesson_saved_three_times_word_for_word_recurs_and_is_proposed(memory_root, settings):
    settings.AGENT_LESSONS = "propose"
    bot_create(slug="ava")
    assert [fact.existed for fact in saved(A, 3)] == [False, True, True]
    [(path, lines)] = texts_on_disk(memory_root).items()
    assert lines == [A]  # one fact on disk, its two repeats recorded
    assert list(LessonRepeat.objects.values_list("bot", "text", "via")) == [("ava", A, "api")] * 2
    [lesson] = lessons_recurring(bot="ava")
    assert (lesson.text, len(lesson.facts), lesson.times) == (A, 1, 3)
    proposal = lessons_propose(bot="ava")
    assert proposal is not None and proposal.text == f"Lessons learned:\n- {A}"


def test_a_lesson_saved_twice_is_not_yet_recurring(memory_root):
    bot_create(slug="ava")
    saved(A, 2)
    assert LessonRepeat.objects.count() == 1
    assert lessons_recurring(bot="ava") == []


def test_repeats_of_a_fact_that_is_no_lesson_are_not_recorded(memory_root):
    bot_create(slug="ava")
    saved("Deploys go out on Tuesdays", 3, kind="decision")
    assert LessonRepeat.objects.count() == 0
    assert lessons_recurring(bot="ava") == []


def test_erasing_the_lesson_erases_its_repeats(memory_root):
    bot_create(slug="ava")
    saved(A, 3)
    fact_id = fact_identity(A)
    assert any(line.startswith("repeat") for line in remaining(fact_id))
    erased = fact_erase(reach=reach_of_bot("ava"), fact_id=fact_id, by="ava", via="api")
    assert erased.counts["repeat"] == 2
    assert LessonRepeat.objects.count() == 0 and remaining(fact_id) == []
    saved(A, 1)  # said again after the erase: the erased repeats do not count
    assert lessons_recurring(bot="ava") == []
