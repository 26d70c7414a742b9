"""A person's memory controls: pause and excluded topics set through `memstore.rules.controls`, each
change in the person's audit history; excluded topics matched in any word form; the pause
refusing bots' saves into the person's own memory (not the person's own console edits);
`manage.py people pause|resume|exclude|include|controls`."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management.base import CommandError
from django.utils import timezone

from memstore.errors import InvalidName, InvalidTopic, MemoryPaused, TopicExcluded
from memstore.facts.paths import Scope
from memstore.models import PersonSettings
from memstore.registry.people import person_add
from memstore.rules.controls import (
    Controls,
    controls_history,
    controls_read,
    memory_pause,
    memory_resume,
    person_controls,
    topic_exclude,
    topic_include,
)
from memstore.rules.policy import excluded_topic
from memstore.store.services import fact_remember
from tests.helpers import run_command, texts_on_disk, tree

pytestmark = pytest.mark.django_db


@pytest.fixture
def ann(db):
    return get_user_model().objects.create_user("ann")


@pytest.mark.parametrize(
    "text",
    [
        "Got divorced last spring",
        "Is divorcing her husband",
        "Two DIVORCES so far",
        "Talked about the divor\u200bce",
        "Ｄｉｖｏｒｃｅｄ in 2019",
    ],
)
def test_an_excluded_topic_matches_any_word_form_case_and_hidden_characters(text):
    assert excluded_topic(text, ["divorce"]) == "divorce"


@pytest.mark.parametrize(
    ("text", "topics", "expected"),
    [
        ("Started new jobs twice", ["new job"], "new job"),
        ("A new and better job", ["new job"], None),  # words side by side, in order
        ("Healthcare budget", ["health"], None),  # another word, not a word form
        ("Plans the offsite", ["divorce", "  "], None),
    ],
)
def test_topics_of_several_words_and_non_matches(text, topics, expected):
    assert excluded_topic(text, topics) == expected


def test_each_change_is_recorded_once_with_who_and_how(ann, memory_root):
    memory_pause(person="ann", by="ann", via="console")
    memory_pause(person="ann", by="ann", via="console")  # already paused: nothing to record
    topic_exclude(person="ann", topic="  Divorce ", by="boss", via="console")
    topic_exclude(person="ann", topic="divorce", by="boss", via="console")
    topic_exclude(person="ann", topic="health", by="ann", via="command")
    topic_include(person="ann", topic="HEALTH", by="ann", via="console")
    memory_resume(person="ann", by="ann", via="console")
    assert person_controls(person="ann").topics == ("divorce",)
    assert not person_controls(person="ann").paused
    history = [(c.by, c.via, c.action, c.topic) for c in controls_history(person="ann")]
    assert history == [
        ("ann", "console", "resume", ""),
        ("ann", "console", "include", "health"),
        ("ann", "command", "exclude", "health"),
        ("boss", "console", "exclude", "divorce"),
        ("ann", "console", "pause", ""),
    ]
    assert all(c.at for c in controls_history(person="ann"))
    assert list(tree(memory_root)) == ["users/ann/controls.jsonl"]


@pytest.mark.parametrize("topic", ["", "   ", "\u200b", "x" * 81])
def test_a_blank_or_overlong_topic_is_refused_and_nothing_changes(ann, memory_root, topic):
    with pytest.raises(InvalidTopic):
        topic_exclude(person="ann", topic=topic, by="ann", via="console")
    assert person_controls(person="ann").topics == ()
    assert controls_history(person="ann") == []


def test_a_person_without_a_console_account_has_no_controls_to_set(db, memory_root):
    with pytest.raises(InvalidName, match="no console account"):
        memory_pause(person="zoe", by="boss", via="console")
    assert tree(memory_root) == {}


def test_a_pause_refuses_what_is_learned_about_the_person(ann, memory_root):
    memory_pause(person="ann", by="ann", via="console")
    with pytest.raises(MemoryPaused) as refused:
        fact_remember(shard=Scope("user", "ann").shard("ava"), text="Lives in Porto", via="learner")
    assert refused.value.code == "memory_paused"
    assert texts_on_disk(memory_root) == {}


@pytest.mark.parametrize("via", ["api", "tool"])
def test_a_pause_lets_an_explicit_save_about_the_person_through(ann, memory_root, via):
    memory_pause(person="ann", by="ann", via="console")
    fact_remember(shard=Scope("user", "ann").shard("ava"), text="Lives in Porto", via=via)
    assert texts_on_disk(memory_root) == {
        "users/ann/memory/by-agent/ava/log/" + _month() + ".md": ["Lives in Porto"]
    }


def test_a_pause_leaves_the_persons_own_edits_and_bots_own_memory(ann, memory_root):
    memory_pause(person="ann", by="ann", via="console")
    fact_remember(shard=Scope("user", "ann").shard("ava"), text="Lives in Porto", via="console")
    fact_remember(shard=Scope("bot", "ava").shard("ava"), text="Uses metric units", via="api")
    assert texts_on_disk(memory_root) == {
        "users/ann/memory/by-agent/ava/log/" + _month() + ".md": ["Lives in Porto"],
        "agents/ava/memory/log/" + _month() + ".md": ["Uses metric units"],
    }


def test_excluded_topics_apply_to_the_next_save_in_any_word_form(ann, memory_root):
    shard = Scope("user", "ann").shard("ava")
    fact_remember(shard=shard, text="Her divorce is final", via="api")
    topic_exclude(person="ann", topic="divorce", by="ann", via="console")
    with pytest.raises(TopicExcluded):
        fact_remember(shard=shard, text="Got divorced in May", via="api")
    topic_include(person="ann", topic="divorce", by="ann", via="console")
    fact_remember(shard=shard, text="Got divorced in May", via="api")
    month = "users/ann/memory/by-agent/ava/log/" + _month() + ".md"
    assert texts_on_disk(memory_root) == {month: ["Her divorce is final", "Got divorced in May"]}


def test_manage_py_people_sets_and_shows_the_controls(ann, memory_root):
    assert "ann: memory paused" in run_command("people", "pause", "ann", "--by", "ops")
    out = run_command("people", "exclude", "ann", "Divorce", "--by", "ops")
    assert out == "ann: memory paused; excluded topics: divorce.\n"
    run_command("people", "include", "ann", "divorce", "--by", "ops")
    run_command("people", "resume", "ann", "--by", "ops")
    shown = run_command("people", "controls", "ann")
    assert shown.splitlines()[0] == "ann: memory on; excluded topics: none."
    assert [line.split()[1:3] for line in shown.splitlines()[1:]] == [
        ["ops", "resume"],
        ["ops", "include"],
        ["ops", "exclude"],
        ["ops", "pause"],
    ]
    with pytest.raises(CommandError, match="no console account"):
        run_command("people", "pause", "zoe")


def _month() -> str:
    return f"{timezone.localdate():%Y-%m}"


def test_controls_follow_the_account_the_person_is_registered_with(db, memory_root):
    # Bots call her "alice"; her console account is "alice.smith", linked in the registry.
    get_user_model().objects.create_user("alice.smith")
    person_add(name="alice", username="alice.smith")
    get_user_model().objects.create_user("alice")  # someone else's account, same name
    memory_pause(person="alice", by="alice.smith", via="console")
    topic_exclude(person="alice", topic="bonus", by="alice.smith", via="console")
    assert person_controls(person="alice").paused
    assert controls_read(people=["alice"])["alice"] == Controls("alice", True, ("bonus",))
    with pytest.raises(MemoryPaused):
        fact_remember(
            shard=Scope("user", "alice").shard("ava"), text="Lives in Porto", via="learner"
        )
    memory_resume(person="alice", by="alice.smith", via="console")
    with pytest.raises(TopicExcluded):
        fact_remember(shard=Scope("user", "alice").shard("ava"), text="Her bonus went up")
    rows = dict(PersonSettings.objects.values_list("user__username", "excluded_topics"))
    assert rows == {"alice.smith": ["bonus"]}  # nothing set on the other "alice" account
