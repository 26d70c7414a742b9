"""Claude's memory tool (`POST /api/v1/memory-tool`): its commands, sent as the model sends them,
land in the bot's Markdown files through the one write path (the gate, audiences, history and
hand-edit safety), and a command that can't be done answers what to do instead."""

import pytest

from memstore.facts.history import history_read
from memstore.facts.paths import Scope
from tests.helpers import BotClient

pytestmark = pytest.mark.django_db


def tool(bot: BotClient, **command) -> tuple[int, str]:
    answer = bot.post("/memory-tool", command)
    return answer.status, answer.body.get("result") or answer.body.get("message", "")


def test_the_tree_lists_one_file_per_scope_this_room_may_write(bot_a):
    bot_a.projects = "apollo"
    status, listing = tool(bot_a, command="view", path="/memories")
    assert status == 200
    assert listing.splitlines()[1:] == [
        "/memories/bot.md\t(bot a's own memory)",
        "/memories/user.md\t(about alice)",
        "/memories/projects/apollo.md\t(project apollo)",
    ]


def test_no_user_file_in_a_group_room(tokens):
    team = BotClient(token=tokens["a"], room_id="team", room_kind="group", person="")
    listing = tool(team, command="view", path="/memories")[1]
    assert "user.md" not in listing
    status, message = tool(team, command="create", path="/memories/user.md", file_text="x")
    assert status == 422
    assert "There is no file /memories/user.md here" in message


def test_create_saves_each_line_as_a_fact_in_the_file_of_its_scope(bot_a, memory_root):
    text = "# Alice\n- Prefers window seats\n\n* (2026-11-02) Flies from Lisbon\n"
    status, answer = tool(bot_a, command="create", path="/memories/user.md", file_text=text)
    assert (status, answer) == (200, "Saved 2 new fact(s) in /memories/user.md (about alice).")
    on_disk = (memory_root / "users/alice/memory/by-agent/a/profile.md").read_text()
    facts = [line[15:].split(" <!--")[0] for line in on_disk.splitlines() if line.startswith("- (")]
    assert facts == ["Prefers window seats", "Flies from Lisbon"]  # dated today, as any save
    view = tool(bot_a, command="view", path="/memories/user.md")[1]
    assert view.splitlines() == [
        "Here's the content of /memories/user.md with line numbers:",
        "     1\t# About alice",
        "     2\t- Prefers window seats",
        "     3\t- Flies from Lisbon",
    ]
    again = tool(bot_a, command="insert", path="/memories/user.md", insert_line=3,
                 insert_text="- Prefers window seats")[1]  # fmt: skip
    assert again == "Saved 0 new fact(s) in /memories/user.md (about alice); 1 already there."


def test_str_replace_edits_the_one_line_in_place_and_keeps_history(bot_a, memory_root):
    tool(bot_a, command="create", path="/memories/bot.md", file_text="- Standup is at 9:30\n")
    status, answer = tool(
        bot_a, command="str_replace", path="/memories/bot.md", old_str="9:30", new_str="10:00"
    )
    assert (
        status,
        answer,
    ) == (200, "Edited /memories/bot.md: the line now reads - Standup is at 10:00")
    on_disk = (memory_root / "agents/a/memory/profile.md").read_text()
    assert "Standup is at 10:00" in on_disk and "9:30" not in on_disk
    changes = history_read(memory_root, Scope("bot", "a").shard("a"))
    assert [c.op for c in changes] == ["add", "edit"]
    gone = tool(bot_a, command="str_replace", path="/memories/bot.md",
                old_str="- Standup is at 10:00", new_str="")  # fmt: skip
    assert gone == (200, "Removed from /memories/bot.md: - Standup is at 10:00")
    assert "Standup" not in (memory_root / "agents/a/memory/profile.md").read_text()


def test_str_replace_needs_text_that_is_there_once(bot_a):
    tool(bot_a, command="create", path="/memories/bot.md", file_text="- Likes tea\n- Likes jazz")
    assert tool(
        bot_a, command="str_replace", path="/memories/bot.md", old_str="coffee", new_str="x"
    ) == (422, "No replacement was made: old_str 'coffee' is not in /memories/bot.md.")
    status, message = tool(
        bot_a, command="str_replace", path="/memories/bot.md", old_str="Likes", new_str="Loves"
    )
    assert status == 422 and "is in 2 lines of /memories/bot.md" in message


def test_a_secret_is_refused_and_nothing_is_written(bot_a, memory_root):
    status, answer = tool(
        bot_a,
        command="create",
        path="/memories/bot.md",
        file_text="- The deploy key is sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
    )
    assert status == 422
    assert not (memory_root / "agents/a/memory/profile.md").exists()
    mixed = tool(bot_a, command="create", path="/memories/bot.md",
                 file_text="- Likes tea\n- password: hunter2hunter2")[1]  # fmt: skip
    assert mixed.startswith("Saved 1 new fact(s) in /memories/bot.md")
    assert "Refused, nothing written for them:\n- password: hunter2hunter2:" in mixed


@pytest.mark.parametrize(
    "command",
    [
        {"command": "view", "path": "/etc/passwd"},
        {"command": "view", "path": "/memories/../etc"},
        {"command": "create", "path": "/memories/notes.txt", "file_text": "x"},
        {"command": "delete", "path": "/memories/bot.md"},
        {"command": "rename", "old_path": "/memories/user.md", "new_path": "/memories/bot.md"},
        {"command": "str_replace", "path": "/memories/bot.md", "old_str": "a\nb", "new_str": ""},
        {"command": "view", "path": "/memories/bot.md", "view_range": [3, 9]},
    ],
)
def test_what_the_tool_cannot_do_is_refused_with_what_to_do_instead(bot_a, command, memory_root):
    status, message = tool(bot_a, **command)
    assert status == 422
    assert message  # the model reads it as the tool's error
    assert not (memory_root / "agents").exists()


def test_another_bots_line_is_not_changed(tokens, memory_root):
    a = BotClient(token=tokens["a"], projects="apollo")
    b = BotClient(token=tokens["b"], projects="apollo")
    tool(b, command="create", path="/memories/projects/apollo.md", file_text="- Ships Friday")
    assert "- Ships Friday" in tool(a, command="view", path="/memories/projects/apollo.md")[1]
    status, message = tool(
        a, command="str_replace", path="/memories/projects/apollo.md", old_str="Friday", new_str="x"
    )
    assert status == 422 and "saved by bot b, not a" in message
    assert (
        "Ships Friday" in (memory_root / "projects/apollo/memory/by-agent/b/profile.md").read_text()
    )


def test_a_hand_edit_is_seen_by_the_next_view(bot_a, memory_root):
    tool(bot_a, command="create", path="/memories/bot.md", file_text="- Likes tea")
    path = memory_root / "agents/a/memory/profile.md"
    path.write_text(path.read_text().replace("Likes tea", "Likes green tea"))
    assert "- Likes green tea" in tool(bot_a, command="view", path="/memories/bot.md")[1]
