"""What can reach a person's prompts, by the same rule as the outgoing gate: every fact that
names them, whichever bot holds it (linked to them or not), team-wide or workspace-wide, each
flagged where it can't reach a prompt; and a fact on their excluded topic held in a bot's own
memory reaches neither their recall nor their prompt."""

from dataclasses import replace

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from memstore.console.reach import prompt_reach
from memstore.prompt.answer import prompt_answer
from memstore.recall import recall_search
from memstore.registry.bots import bot_create, bot_private_set
from memstore.registry.people import person_add, person_link
from memstore.rooms.access import WORKSPACE
from memstore.rules.controls import topic_exclude
from tests.helpers import direct, group, log, write_facts

pytestmark = pytest.mark.django_db

BONUS = "Sam's bonus band is L5"
DEMO = "Sam runs the Friday demo"
DRAFTS = "Sam keeps the board drafts"
OFFSITE = "Sam leads the Porto offsite"
REVIEWS = "Sam reviews the deploys"


@pytest.fixture
def sam(memory_root, settings):
    """sam excluded "bonus" and is linked to ada only; ben and scout (a private memory) are
    not linked to him; every one of them holds facts naming him."""
    settings.EMBEDDINGS = "none"
    user = get_user_model().objects.create_user("sam")
    person_add(name="sam", username="sam")
    for bot in ("ada", "ben", "scout"):
        bot_create(slug=bot)
    bot_private_set(bot="scout", private=True)
    person_link(person="sam", bot="ada")
    topic_exclude(person="sam", topic="bonus", by="sam", via="console")
    log(
        memory_root,
        "bot",
        "ada",
        "2026-11",
        f"- (2026-11-01) {REVIEWS} <!-- visibility=private -->",
    )
    log(memory_root, "bot", "ben", "2026-11", f"- (2026-11-02) {DEMO}", f"- (2026-11-03) {BONUS}")
    log(memory_root, "bot", "scout", "2026-11", f"- (2026-11-04) {DRAFTS}", bot="scout")
    write_facts(memory_root, f"{WORKSPACE.shard('app').rel}/log/2026-11.md", OFFSITE)
    return user


def named(reaches, bot: str, kind: str) -> dict[str, str | None]:
    reach = next(r for r in reaches if (r.bot, r.kind) == (bot, kind))
    return {n.fact.text: n.reason for n in reach.named}


def test_every_fact_naming_him_is_listed_whichever_bot_holds_it(sam):
    reaches = prompt_reach(person="sam", bots=["ada"])
    assert named(reaches, "ada", "direct") == {REVIEWS: None, OFFSITE: None}
    assert named(reaches, "ada", "group") == {REVIEWS: "private", OFFSITE: None}
    # Not linked to sam: listed all the same, as the group rooms where they meet.
    assert named(reaches, "ben", "group") == {DEMO: None, BONUS: "topic", OFFSITE: None}
    assert named(reaches, "scout", "group") == {DRAFTS: "not readable", OFFSITE: None}
    assert {(r.bot, r.kind) for r in reaches if r.bot != "ada"} == {
        ("ben", "group"),
        ("scout", "group"),
    }


def test_what_the_page_says_reaches_is_what_the_prompts_hold(sam):
    reaches = prompt_reach(person="sam", bots=["ada"])
    for bot in ("ben", "scout"):
        # A group room another bot opened: scout's private memory is not read there.
        prompt = prompt_answer(ctx=replace(group(bot=bot), private_memory=bot == "scout")).text
        for text, reason in named(reaches, bot, "group").items():
            assert (text in prompt) == (reason is None), (bot, text)
    console = Client()
    console.force_login(sam)
    html = console.get("/people/sam/prompts/").content.decode()
    assert 'data-bot="ben"' in html and DEMO in html
    assert "this bot keeps a private memory" in html  # scout's, outside its own rooms
    assert "workspace memory (every bot" in html


def test_a_fact_on_his_topic_in_a_bots_own_memory_reaches_neither_his_recall_nor_prompt(sam):
    for ctx in (direct(bot="ben", person="sam", room="dm-sam"), group(bot="ben")):
        assert BONUS not in [f.text for f in recall_search(ctx=ctx, query="bonus band").items]
        prompt = prompt_answer(ctx=ctx).text
        assert BONUS not in prompt and DEMO in prompt
