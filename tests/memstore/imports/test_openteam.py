"""`manage.py import openteam`: an agent-data folder built the way OpenTeam's server writes it,
imported in one command.

The layout reproduced here is OpenTeam's own (raghavpillai/openteam, the server's agent-data
store and its memory-files module): agents are folders named by a random UUID holding
`profile.json` (`{"name", "description", "title", "avatarShape", "avatarColor", "namedBy"}`,
JSON with two-space indent), `settings.json`, `projects.json` (`{"projects": [slug…]}`) and
`memory/` (`profile.md` under the header "# About the user", `log/YYYY-MM.md` under "# Memory
log", each fact `- (YYYY-MM-DD) <fact>`, notes as `[note] …`, and an empty
`.dreaming/explicit/<fact id>.memory` for a fact saved on purpose); legacy per-conversation
memory in `agents/<uuid>/conversations/<id>/memory/`; group chats as `agents/<id>/group.json`;
the one human's memory in `user-memory/by-agent/<uuid>/`; projects as `projects/<slug>/project.md`
(front matter with JSON-quoted `name` and `description`) and
`projects/<slug>/memory/by-agent/<uuid>/`.
"""

import hashlib
import json
import uuid
from pathlib import Path

import pytest

from memstore.models import Bot, Person, PersonLink, ProjectMember
from memstore.registry.bots import bot_create
from memstore.registry.people import person_add
from tests.memstore.imports.common import all_facts, md_tree, run_import, write

PROFILE_HEADER = (
    "# About the user\n\n"
    '<!-- Safe to read, grep, and edit. One fact per line, as "- (YYYY-MM-DD) <fact>". -->\n'
)
LOG_HEADER = (
    "# Memory log\n\n"
    '<!-- Safe to read, grep, and edit. One fact per line, as "- (YYYY-MM-DD) <fact>". -->\n'
)


class AgentData:
    """Writes files the way OpenTeam's agent-data store does."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def agent(self, name: str, projects: list[str] = ()) -> str:
        agent_id = str(uuid.uuid4())
        folder = self.root / "agents" / agent_id
        profile = {
            "name": name,
            "description": f"{name} helps.",
            "title": "",
            "avatarShape": "●",
            "avatarColor": "#4f7cff",
            "namedBy": "user",
        }
        write(folder / "profile.json", json.dumps(profile, indent=2) + "\n")
        write(folder / "settings.json", json.dumps({"notifyOnAgentUpdates": True}, indent=2) + "\n")
        if projects:
            write(
                folder / "projects.json", json.dumps({"projects": list(projects)}, indent=2) + "\n"
            )
        return agent_id

    def group(self) -> str:
        group_id = str(uuid.uuid4())
        folder = self.root / "agents" / group_id
        write(folder / "group.json", json.dumps({"memberIds": []}, indent=2) + "\n")
        write(folder / "profile.json", json.dumps({"name": "Team room", "description": ""}) + "\n")
        return group_id

    def project(self, slug: str, name: str) -> None:
        text = f"---\nname: {json.dumps(name)}\ndescription: {json.dumps('')}\n---\n"
        write(self.root / "projects" / slug / "project.md", text)

    def fact(self, memory: str, day: str, content: str, *, tier: str = "log", explicit=False):
        """appendMemoryFact: profile.md or log/<month>.md, created with its header."""
        path = self.root / memory / ("profile.md" if tier == "profile" else f"log/{day[:7]}.md")
        if tier == "note":
            content = f"[note] {content}"
        current = path.read_text() if path.exists() else ""
        prefix = current or (PROFILE_HEADER if tier == "profile" else LOG_HEADER)
        write(path, f"{prefix}- ({day}) {content}\n")
        if explicit:
            logical = hashlib.sha1(" ".join(content.split()).lower().encode()).hexdigest()[:16]
            write(self.root / memory / ".dreaming" / "explicit" / f"{logical}.memory", "")


@pytest.fixture
def data(tmp_path) -> AgentData:
    return AgentData(tmp_path / "agent-data")


def build(data: AgentData) -> dict[str, str]:
    scout = data.agent("Scout", projects=["apollo"])
    ava = data.agent("Ava Research")
    ghost = str(uuid.uuid4())  # a writer shard whose agent was deleted
    room = str(uuid.uuid4())
    data.group()
    data.project("apollo", "Apollo launch")
    data.project("zeus", "Zeus")
    write(data.root / "agents" / "active-agent.json", json.dumps({"activeAgentId": scout}))
    data.fact(
        f"agents/{scout}/memory",
        "2026-01-05",
        "Writes reports in British English",
        tier="profile",
        explicit=True,
    )
    data.fact(f"agents/{scout}/memory", "2026-03-02", "Likes rooftop venues", tier="note")
    data.fact(f"agents/{scout}/memory", "2026-03-03", "Key sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a")
    data.fact(f"agents/{ava}/memory", "2026-01-01", "Ava keeps the research log", tier="profile")
    data.fact(f"user-memory/by-agent/{scout}", "2026-02-01", "Sam prefers tea", tier="profile")
    data.fact(f"user-memory/by-agent/{ghost}", "2026-02-02", "Sam lives in Lisbon", tier="profile")
    data.fact(f"projects/apollo/memory/by-agent/{scout}", "2026-02-10", "Launch in May")
    data.fact(f"projects/zeus/memory/by-agent/{scout}", "2026-02-11", "Zeus is paused")
    data.fact(
        f"agents/{scout}/conversations/{room}/memory",
        "2025-12-01",
        "The room uses Jira",
        tier="profile",
    )
    with open(data.root / "agents" / scout / "memory" / "profile.md", "a") as f:
        f.write("- (2026-02-30) Not a real day\n- a bullet without a date\n")
    # A symbolic link planting the human's private memory in Ava's team-wide profile.
    (data.root / "agents" / ava / "memory" / "log").mkdir(parents=True)
    (data.root / "agents" / ava / "memory" / "log" / "2026-02.md").symlink_to(
        data.root / "user-memory" / "by-agent" / scout / "profile.md"
    )
    return {"scout": scout, "ava": ava, "ghost": ghost, "room": room}


def test_a_dry_run_creates_nothing_and_says_what_it_would(data, memory_root, db):
    ids = build(data)
    person_add(name="sam")

    dry = run_import(
        "openteam",
        str(data.root),
        "--person",
        "sam",
        "--create-bots",
        "--create-projects",
        "--dry-run",
    )

    assert md_tree(memory_root) == {}
    assert not Bot.objects.exists() and not ProjectMember.objects.exists()
    assert not PersonLink.objects.exists() and Person.objects.count() == 1
    lines = dry.splitlines()
    assert lines[0] == "Would import 6 facts; 0 already there; 2 refused; 5 lines skipped."
    assert f"  would create bot scout for agent {ids['scout']} ('Scout')" in lines
    assert f"  would create bot ava-research for agent {ids['ava']} ('Ava Research')" in lines
    assert any(line.startswith("  would join project apollo as bot scout") for line in lines)
    assert "  would link person sam to bot scout" in lines


def test_without_create_bots_every_agent_is_reported_not_registered(data, memory_root, db):
    ids = build(data)

    summary = run_import("openteam", str(data.root), "--person", "sam")

    assert md_tree(memory_root) == {}
    assert not Bot.objects.exists() and not Person.objects.exists()
    assert (
        f"bot 'scout' (agent {ids['scout']}) is not registered: create it with --create-bots, "
        f"or map the agent to a bot with --map-agent {ids['scout']}=SLUG"
    ) in summary


def test_the_folder_imports_in_one_command_and_again_adds_nothing(data, memory_root, db):
    ids = build(data)
    person_add(name="sam")
    args = ("openteam", str(data.root), "--person", "sam", "--create-bots", "--create-projects")

    summary = run_import(*args)

    scout, room = ids["scout"], ids["room"]
    assert all_facts(memory_root) == {
        "agents/scout/memory/profile.md": [
            f"- (2026-01-05) Writes reports in British English <!-- pin=true "
            f"src=agents/{scout}/memory/profile.md:4 by=scout via=import -->"
        ],
        "agents/scout/memory/log/2026-03.md": [
            f"- (2026-03-02) [note] Likes rooftop venues <!-- src=agents/{scout}/memory/log/"
            "2026-03.md:4 by=scout via=import -->"
        ],
        "agents/ava-research/memory/profile.md": [
            f"- (2026-01-01) Ava keeps the research log <!-- src=agents/{ids['ava']}/memory/"
            "profile.md:4 by=ava-research via=import -->"
        ],
        "users/sam/memory/by-agent/scout/profile.md": [
            f"- (2026-02-01) Sam prefers tea <!-- src=user-memory/by-agent/{scout}/profile.md:4 "
            "by=scout via=import -->"
        ],
        "projects/apollo/memory/by-agent/scout/log/2026-02.md": [
            f"- (2026-02-10) Launch in May <!-- src=projects/apollo/memory/by-agent/{scout}/log/"
            "2026-02.md:4 by=scout via=import -->"
        ],
        f"rooms/{room}/memory/by-agent/scout/profile.md": [
            f"- (2025-12-01) The room uses Jira <!-- src=agents/{scout}/conversations/{room}/"
            "memory/profile.md:4 by=scout via=import -->"
        ],
    }
    assert dict(Bot.objects.values_list("slug", "display_name")) == {
        "scout": "Scout",
        "ava-research": "Ava Research",
    }
    assert list(ProjectMember.objects.values_list("bot__slug", "project")) == [("scout", "apollo")]
    lines = summary.splitlines()
    assert lines[0] == "Imported 6 facts; 0 already there; 2 refused; 5 lines skipped."
    expected = [
        "secret_refused: This looks like",
        "forbidden: Bot 'scout' has not joined project 'zeus'.",
        "a group chat's folder, not an agent",
        f"a writer shard of {ids['ghost']}, which is not an agent in this folder",
        "a symbolic link (inside the folder): links are never followed",
        "a fact line with an invalid date (2026-02-30)",
        "a bullet that is not a dated fact line",
    ]
    for reason in expected:
        assert reason in summary, reason

    files = md_tree(memory_root)
    again = run_import(*args)
    assert md_tree(memory_root) == files
    assert again.splitlines()[0] == "Imported 0 facts; 6 already there; 2 refused; 5 lines skipped."


def test_map_agent_and_bot_name_existing_bots(data, memory_root, db):
    scout = data.agent("Scout")
    data.fact(f"agents/{scout}/memory", "2026-01-05", "Owns the weekly report", tier="profile")
    bot_create(slug="ranger")

    summary = run_import("openteam", str(data.root), "--map-agent", f"{scout}=ranger")
    assert summary.splitlines()[0].startswith("Imported 1 facts")
    assert list(all_facts(memory_root)) == ["agents/ranger/memory/profile.md"]

    # A folder of one agent may also be given --bot, as before.
    bot_create(slug="solo")
    summary = run_import("openteam", str(data.root), "--bot", "solo")
    assert summary.splitlines()[0].startswith("Imported 1 facts")
    assert "agents/solo/memory/profile.md" in all_facts(memory_root)


def test_user_memory_needs_the_one_human(data, memory_root, db):
    scout = data.agent("Scout")
    data.fact(f"user-memory/by-agent/{scout}", "2026-02-01", "Sam prefers tea", tier="profile")
    bot_create(slug="scout")

    summary = run_import("openteam", str(data.root))
    assert "user memory of the server's one human: name them with --person" in summary

    summary = run_import("openteam", str(data.root), "--person", "sam")
    assert "person 'sam' is not registered" in summary and "--create-people" in summary
    assert md_tree(memory_root) == {} and not Person.objects.exists()


def test_two_agents_with_one_name_the_report_names_the_one_the_bot_is_for(data, memory_root, db):
    first, second = sorted([data.agent("Scout"), data.agent("Scout")])
    data.fact(f"agents/{first}/memory", "2026-01-05", "Owns the weekly report", tier="profile")
    data.fact(f"agents/{second}/memory", "2026-01-06", "Books the venues", tier="profile")

    summary = run_import("openteam", str(data.root), "--create-bots")

    assert f"created bot scout for agent {first} ('Scout')" in summary
    assert f"agent {second} would be bot 'scout' like agent {first}" in summary
    assert all_facts(memory_root) == {
        "agents/scout/memory/profile.md": [
            "- (2026-01-05) Owns the weekly report <!-- src=agents/"
            f"{first}/memory/profile.md:4 by=scout via=import -->"
        ]
    }
