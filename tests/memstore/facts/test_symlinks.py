"""A symbolic link inside the memory folder is never followed: a month file or a whole folder
in a bot's memory that points into a person's memory puts nothing of theirs in the bot's
team-wide prompt or recall, nothing is written through it, and staff see it named under "What
failed" and on Workspace health."""

import os

import pytest

from memstore.console.overview import problems_list
from memstore.console.viewer import Viewer
from memstore.facts.symlinks import links_found
from memstore.registry.bots import bot_create
from memstore.registry.people import person_add, person_link
from memstore.registry.tokens import token_create
from tests.helpers import BotClient

pytestmark = pytest.mark.django_db

PRIVATE = "Alice is pregnant and has told nobody at work"


@pytest.fixture
def linked(memory_root):
    """ava's direct room with alice holds a private fact in alice's user memory; ava's own
    (team-wide) memory has a real fact, then links into alice's folder are made by hand."""
    bot_create(slug="ava")
    bot_create(slug="bob")
    person_add(name="alice")
    person_link(person="alice", bot="ava")
    token = token_create(bot="ava").token
    dm = BotClient(token=token, room_id="dm-alice", room_kind="direct", person="alice")
    assert dm.post("/facts", {"text": PRIVATE, "scope": "user"}).status == 201
    assert dm.post("/facts", {"text": "The team ships on Fridays", "scope": "bot"}).status == 201
    group = BotClient(token=token, room_id="team", room_kind="group", person="")
    return dm, group


def _one(root, pattern: str):
    [path] = root.glob(pattern)
    return path


def test_a_linked_month_file_or_folder_is_not_read(linked, memory_root):
    dm, group = linked
    alice_month = _one(memory_root, "users/alice/memory/by-agent/ava/log/*.md")
    ava_logs = memory_root / "agents/ava/memory/log"
    # A month file of another month, in ava's own log folder, pointing at alice's month.
    os.symlink(alice_month, ava_logs / "2020-01.md")
    # A whole profile and a whole bot folder pointing into alice's memory.
    os.symlink(alice_month, memory_root / "agents/ava/memory/profile.md")
    (memory_root / "agents/bob").mkdir()
    os.symlink(alice_month.parent.parent, memory_root / "agents/bob/memory", True)

    prompt = group.get("/prompt").body["text"]
    assert "ships on Fridays" in prompt  # the real file is read
    assert "pregnant" not in prompt
    recalled = group.get("/recall", q="pregnant work").body
    assert "pregnant" not in str(recalled)
    assert "pregnant" in dm.get("/prompt").body["text"]  # where it belongs, it is still there


def test_nothing_is_written_through_a_link(linked, memory_root):
    dm, group = linked
    alice_month = _one(memory_root, "users/alice/memory/by-agent/ava/log/*.md")
    ava_month = memory_root / "agents/ava/memory/log" / alice_month.name
    before = alice_month.read_text()
    ava_month.unlink()
    os.symlink(alice_month, ava_month)

    answer = group.post("/facts", {"text": "Standup moved to 10:00", "scope": "bot"})

    assert (answer.status, answer.body["code"]) == (409, "unreadable_file"), answer.body
    assert "symbolic link" in answer.body["message"]
    assert alice_month.read_text() == before
    assert os.path.islink(ava_month)


def test_staff_see_every_link_named(linked, memory_root):
    alice_month = _one(memory_root, "users/alice/memory/by-agent/ava/log/*.md")
    os.symlink(alice_month, memory_root / "agents/ava/memory/log/2020-01.md")
    os.symlink(alice_month.parent, memory_root / "agents/ava/memory/old", True)

    expected = ["agents/ava/memory/log/2020-01.md", "agents/ava/memory/old"]
    assert links_found(memory_root) == expected
    assert problems_list(viewer=Viewer(person="", staff=True)).links == expected
    assert problems_list(viewer=Viewer(person="alice")).links == []


def test_workspace_health_and_home_name_the_links(
    linked, memory_root, client, django_user_model, settings
):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    alice_month = _one(memory_root, "users/alice/memory/by-agent/ava/log/*.md")
    os.symlink(alice_month, memory_root / "agents/ava/memory/log/2020-01.md")
    staff = django_user_model.objects.create_user("root", password="pw-root-1234", is_staff=True)
    client.force_login(staff)
    for url in ("/", "/health/"):
        page = client.get(url).content.decode()
        assert "Symbolic links in memory, not read" in page, url
        assert "agents/ava/memory/log/2020-01.md" in page, url
