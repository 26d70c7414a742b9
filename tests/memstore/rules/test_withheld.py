"""The read-time rule (`memstore.rules.withheld`) on real files: what it withholds and why, and
that the learner's known facts, the as-of prompt and a paused person's private facts obey it."""

import secrets
import string
from datetime import date

import pytest
from django.contrib.auth import get_user_model
from hypothesis import given, settings
from hypothesis import strategies as st

from memstore.facts.paths import Scope
from memstore.facts.records import StoredFact
from memstore.learning.known import known_facts
from memstore.prompt.asof import prompt_as_of
from memstore.prompt.section import prompt_build
from memstore.registry.people import person_add
from memstore.rooms.access import Context, Room
from memstore.rules.controls import Controls, memory_pause, names, topic_exclude
from memstore.rules.sensitive import sensitive_in
from memstore.rules.withheld import Withholding, secret_keep, withholding_for
from memstore.store.selectors import facts_list
from tests.helpers import log, profile

pytestmark = pytest.mark.django_db


def _key() -> str:
    return "ghp_" + "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(36))


def _fact(text: str, scope: str = "bot:ada", visibility: str = "context") -> StoredFact:
    return StoredFact(
        fact_id=text[:16].ljust(16, "0"),
        day=date(2026, 11, 1),
        text=text,
        tier="log",
        scope=scope,
        shard_bot="ada",
        file="x.md",
        visibility=visibility,
    )


@pytest.fixture
def sam(memory_root):
    get_user_model().objects.create_user("sam")
    person_add(name="sam", username="sam")
    topic_exclude(person="sam", topic="bonus", by="sam", via="console")


def test_the_reasons(sam):
    rule = withholding_for(person=None)
    assert rule.reason(_fact("Sam's bonus band is L5")) == "topic"
    assert rule.reason(_fact("Talked to SAM about bonuses", scope="project:apollo")) == "topic"
    assert rule.reason(_fact("Bonus reviews happen in May")) is None  # names nobody
    assert rule.reason(_fact("Samantha asked about bonus")) is None
    assert rule.reason(_fact("Asked for a bonus review", scope="user:sam")) == "topic"
    assert rule.reason(_fact("Likes window seats", scope="user:sam")) is None
    assert rule.reason(_fact(f"The token is {_key()}")) == "secret"
    memory_pause(person="sam", by="sam", via="console")
    paused = withholding_for(person="sam")
    assert paused.reason(_fact("Likes window seats", scope="user:sam")) == "paused"
    assert paused.reason(_fact("Keeps a diary", visibility="private")) == "paused"
    assert paused.reason(_fact("Deploys on Tuesdays")) is None


@settings(max_examples=60, deadline=None)
@given(
    before=st.text(alphabet=string.ascii_letters + " ,.", max_size=30),
    after=st.text(alphabet=string.ascii_letters + " ,.", max_size=30),
)
def test_a_text_naming_sam_with_his_topic_is_always_withheld(before, after):
    rule = Withholding(topics=(Controls("sam", topics=("bonus",)),))
    text = f"{before} Sam's bonus {after}"
    assert names(text, "sam")
    # A generated word may be a sensitive keyword itself ("HIV"): the fact is withheld for that.
    assert rule.reason(_fact(text)) == ("sensitive" if sensitive_in(text) else "topic")


def test_the_learner_is_never_shown_what_is_withheld(sam, memory_root):
    key = _key()
    profile(
        memory_root,
        "user",
        "sam",
        "- (2026-11-01) Sam's bonus band is L5",
        "- (2026-11-02) Likes window seats",
    )
    log(memory_root, "bot", "ada", "2026-11", f"- (2026-11-03) The token is {key}")
    known = known_facts(
        scopes=[Scope("user", "sam"), Scope("bot", "ada")],
        projects=[],
        readable=[Scope("user", "sam"), Scope("bot", "ada")],
        exchange_text="what is the bonus band and the token?",
        recalled=[],
    )
    assert [f.text for f in known.shown] == ["Likes window seats"]


def test_a_kept_line_is_shown_again(memory_root):
    key = _key()
    log(memory_root, "bot", "ada", "2026-11", f"- (2026-11-03) The demo token is {key}")
    ctx = Context(bot="ada", room=Room("r", "routine"))
    assert key not in prompt_build(ctx=ctx).text
    (stored,) = facts_list(scopes=[Scope("bot", "ada")]).items
    secret_keep(fact=stored, by="boss")
    assert f"The demo token is {key}" in prompt_build(ctx=ctx).text


def test_a_paused_persons_private_facts_and_user_memory_leave_the_prompt_now_and_as_of(
    sam, memory_root
):
    get_user_model().objects.create_user("ann")
    profile(memory_root, "user", "ann", "- (2026-11-01) Ann likes window seats")
    log(
        memory_root,
        "bot",
        "ada",
        "2026-11",
        "- (2026-11-02) Ann's code word <!-- visibility=private -->",
        "- (2026-11-02) Deploys on Tuesdays",
    )
    ctx = Context(bot="ada", room=Room("dm-ann", "direct"), person="ann")
    text = prompt_build(ctx=ctx).text
    assert "Ann likes window seats" in text and "code word" in text
    memory_pause(person="ann", by="ann", via="console")
    for section in (prompt_build(ctx=ctx), prompt_as_of(ctx=ctx, day=date(2026, 12, 31))):
        assert "window seats" not in section.text and "code word" not in section.text
        assert "### About ann (memory paused)" in section.text
        assert "Deploys on Tuesdays" in section.text
