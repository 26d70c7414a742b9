"""The prompt preview: what a bot's memory section would hold in a chosen room, and, like the
API, nothing about a person the bot does not act for."""

import html

import pytest

from memstore.models import Bot, ProjectMember
from memstore.registry.bots import bot_create
from memstore.registry.people import person_add, person_link
from memstore.registry.tokens import token_create
from tests.helpers import HX, BotClient, day, plain, write_memory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def linked(workspace):
    """ava acts for ann and sam (the API would refuse their direct rooms otherwise)."""
    bot_create(slug="ava")
    for name in ("ann", "sam"):
        person_add(name=name, username=name)
        person_link(person=name, bot="ava")


def test_a_bot_not_linked_to_the_person_gets_no_section_as_the_api_says(ann, workspace):
    bot_create(slug="ben")
    api = BotClient(token=token_create(bot="ben", name="t").token, person="ann").get("/prompt")
    assert (api.status, api.body["code"]) == (403, "person_not_linked")
    text = plain(ann.get("/bots/ben/prompt/?kind=direct&person=ann"))
    assert "About ann" not in text
    assert "ben&#x27; is not linked to ann" in text
    assert "calls from that direct room (403 person_not_linked)" in text


def test_direct_room_shows_the_persons_user_memory_and_never_hidden_facts(ann, workspace):
    text = plain(ann.get("/bots/ava/prompt/"))
    assert "Ann wants reports to lead with decisions" in text
    assert "Plans offsites and budgets" in text
    assert "Sam is vegetarian" not in text and "Escalation phone tree" not in text
    assert "1 hidden fact left out: hidden facts never go into a prompt." in text


def test_group_room_leaves_user_memory_out(ann, workspace):
    text = plain(ann.get("/bots/ava/prompt/?kind=group&room=general", **HX))
    assert "Ann wants reports" not in text and "Plans offsites and budgets" in text


def test_staff_may_preview_another_persons_direct_room(boss, workspace):
    text = plain(boss.get("/bots/ava/prompt/?kind=direct&person=sam"))
    assert "Sam is vegetarian" in text and "Ann wants reports" not in text


def test_at_most_three_projects(ann, workspace):
    bot = Bot.objects.get(slug="ava")
    for name in "abcd":
        ProjectMember.objects.create(project=name, bot=bot)
    url = "/bots/ava/prompt/?kind=group&projects=a&projects=b&projects=c&projects=d"
    assert "At most 3 projects can be in play in one room." in plain(ann.get(url))


def test_each_part_says_what_its_budgets_left_out(ann, workspace):
    lines = [f"- ({day(2)}) Reading list item number {n}" for n in range(35)]
    write_memory(workspace, "agents/cal/memory/log/2026-01.md", *lines)
    text = plain(ann.get("/bots/cal/prompt/?kind=group"))
    assert "Recently · 30 of at most 30 facts · " in text and " of 4000 characters" in text
    assert "Left out: 5 past the 30-fact cap." in text
    assert "5 facts of this scope left out in all." in text


def test_each_part_and_the_whole_text_say_their_size_in_tokens(ann, workspace):
    # The one estimate the console and the model client use: about four characters a token.
    lines = [f"- ({day(2)}) Reading list item number {n}" for n in range(3)]
    write_memory(workspace, "agents/cal/memory/log/2026-01.md", *lines)
    text = plain(ann.get("/bots/cal/prompt/?kind=group"))
    used = sum(len(line) + 1 for line in lines)  # each fact's line and its newline
    assert (
        f"Recently · 3 of at most 30 facts · {used} of 4000 characters, "
        f"about {-(-used // 4)} of 1000 tokens"
    ) in text
    response = ann.get("/bots/ava/prompt/?kind=group")
    page = response.content.decode()
    shown = html.unescape(page.rsplit('<pre class="prompt-text">', 1)[1].split("</pre>")[0])
    chars = len(shown)  # the exact text the preview shows under its summary
    assert chars > 200
    summary = f"The exact text ({chars} characters, about {-(-chars // 4)} tokens)"
    assert summary in plain(response)


def test_the_seed_shape_previews_one_category_with_its_cut_entries(ann, workspace, settings):
    settings.PROMPT_SHAPE, settings.PROMPT_SHAPE_ENTRIES = "seed", 3
    long = "Keeps the reading list in the shared drive " * 6
    lines = [f"- ({day(2)}) Reading list item number {n}" for n in range(4)]
    write_memory(workspace, "agents/cal/memory/log/2026-01.md", *lines, f"- ({day(1)}) {long}")
    text = plain(ann.get("/bots/cal/prompt/?kind=group"))
    assert "Entries · 3 of at most 3 facts · " in text and "Recently ·" not in text
    assert "Left out: 2 past the 3-entry cap, 1 entry shortened to 200 characters." in text
    assert long.strip() not in text and "Keeps the reading list in the shared drive Keeps" in text
