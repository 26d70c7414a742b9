"""The prompt preview: what a bot's memory section would hold in a chosen room."""

import pytest

from memstore.models import Bot, ProjectMember
from tests.helpers import HX, day, plain, write_memory

pytestmark = pytest.mark.django_db


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
    bot = Bot.objects.create(slug="ava")
    for name in "abcd":
        ProjectMember.objects.create(project=name, bot=bot)
    url = "/bots/ava/prompt/?kind=group&projects=a&projects=b&projects=c&projects=d"
    assert "At most 3 projects can be in play in one room." in plain(ann.get(url))


def test_each_part_says_what_its_budgets_left_out(ann, workspace):
    lines = [f"- ({day(2)}) Reading list item number {n}" for n in range(35)]
    write_memory(workspace, "agents/cal/memory/log/2026-01.md", *lines)
    text = plain(ann.get("/bots/cal/prompt/?kind=group"))
    assert "Recently · 30 of at most 30 facts, 4000 characters" in text
    assert "Left out: 5 past the 30-fact cap." in text
    assert "5 facts of this scope left out in all." in text
