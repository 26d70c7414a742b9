"""`manage.py import`: fixtures written in each tool's own format, imported through the bot's
write path (rules applied, provenance on every line), idempotent, with a summary of why."""

import json
import os
from datetime import date, datetime
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError

from memstore.models import PersonSettings
from memstore.registry.bots import bot_create, project_join

DAY = date(2026, 2, 14)


@pytest.fixture
def scout(db):
    bot_create(slug="scout")
    project_join(bot="scout", project="apollo")
    return "scout"


def write(path: Path, text: str, day: date | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if day:
        stamp = datetime(day.year, day.month, day.day, 12).timestamp()
        os.utime(path, (stamp, stamp))
    return path


def run_import(*args: str) -> str:
    out = StringIO()
    call_command("import", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*.md"))}


def facts_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- (")]


def test_openteam_folder(scout, tmp_path, memory_root):
    src = tmp_path / "agent-data"
    write(
        src / "agents/scout/memory/profile.md",
        "# Profile\n\n- (2026-01-05) Writes reports in British English\n"
        "- not a dated line\n- (2026-01-06) Deploys on Fridays <!-- type=decision by=x -->\n",
    )
    write(
        src / "agents/scout/memory/log/2026-03.md",
        "- (2026-03-02) [note] Likes rooftop venues\n"
        "- (2026-03-03) Staging key sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a\n",
    )
    write(src / "agents/ava/memory/profile.md", "- (2026-01-01) Ava's own fact\n")
    write(
        src / "user-memory/by-agent/scout/profile.md",
        "- (2026-02-01) Prefers tea\n- (2026-03-03) Her key is sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f\n",
    )
    write(
        src / "projects/apollo/memory/by-agent/scout/log/2026-02.md",
        "- (2026-02-10) Launch in May\n",
    )
    write(src / "projects/zeus/memory/by-agent/scout/profile.md", "- (2026-02-11) Zeus is secret\n")

    summary = run_import("openteam", str(src), "--bot", "scout", "--person", "alice")

    files = tree(memory_root)
    assert facts_of(files["agents/scout/memory/profile.md"]) == [
        "- (2026-01-05) Writes reports in British English <!-- src=agents/scout/memory/profile.md:3 via=import -->",
        "- (2026-01-06) Deploys on Fridays <!-- type=decision src=agents/scout/memory/profile.md:5 via=import -->",
    ]
    assert facts_of(files["agents/scout/memory/log/2026-03.md"]) == [
        "- (2026-03-02) [note] Likes rooftop venues <!-- src=agents/scout/memory/log/2026-03.md:1 via=import -->"
    ]
    assert facts_of(files["users/alice/memory/by-agent/scout/profile.md"])[0].startswith(
        "- (2026-02-01) Prefers tea"
    )
    assert facts_of(files["projects/apollo/memory/by-agent/scout/log/2026-02.md"])[0].startswith(
        "- (2026-02-10) Launch in May"
    )
    assert not any("zeus" in name or "ava" in name for name in files)
    assert summary.splitlines()[0] == (
        "Imported 5 facts; 0 already there; 3 refused; 2 lines skipped."
    )
    assert "secret_refused" in summary
    assert "has not joined project 'zeus'" in summary
    assert "another bot's shard: import it with --bot ava" in summary
    assert "not a dated fact line" in summary

    again = run_import("openteam", str(src), "--bot", "scout", "--person", "alice")
    assert tree(memory_root) == files
    assert again.splitlines()[0] == "Imported 0 facts; 5 already there; 3 refused; 2 lines skipped."


def test_claude_files(scout, tmp_path, memory_root):
    src = tmp_path / "claude"
    write(
        src / "repo/CLAUDE.md",
        "# Project\n\nProse is not a fact.\n\n- Use uv for Python\n* Run `make test` first\n"
        "```\n- not a bullet, code\n```\n",
        DAY,
    )
    write(
        src / "memory/MEMORY.md",
        "# Memory\n- [Debugging](debugging.md) - how we debug\n- 2026-01-20: Moved CI to arm64\n",
        DAY,
    )
    write(src / "memory/debugging.md", "## Debugging\n1. Check the logs first\n", DAY)
    write(src / "notes/other.md", "- Not memory\n", DAY)

    summary = run_import("claude", str(src), "--bot", "scout")

    files = tree(memory_root)
    assert facts_of(files["agents/scout/memory/profile.md"]) == [
        "- (2026-02-14) Use uv for Python <!-- src=repo/CLAUDE.md:5 via=import -->",
        "- (2026-02-14) Run `make test` first <!-- src=repo/CLAUDE.md:6 via=import -->",
    ]
    assert facts_of(files["agents/scout/memory/log/2026-01.md"]) == [
        "- (2026-01-20) Moved CI to arm64 <!-- src=memory/MEMORY.md:3 via=import -->"
    ]
    assert facts_of(files["agents/scout/memory/log/2026-02.md"]) == [
        "- (2026-02-14) Check the logs first <!-- src=memory/debugging.md:2 via=import -->"
    ]
    assert (
        summary.splitlines()[0] == "Imported 4 facts; 0 already there; 0 refused; 2 lines skipped."
    )


def test_mem0_export_maps_users_to_people(scout, tmp_path, memory_root):
    export = {
        "results": [
            {
                "id": "m-1",
                "memory": "Is vegetarian",
                "user_id": "u_17",
                "created_at": "2026-01-09T10:00:00Z",
                "categories": ["food", "user_preferences"],
            },
            {"id": "m-2", "memory": "Team standup is at 9", "created_at": "2026-01-10T08:00:00Z"},
            {"id": "m-3", "memory": "Plays chess", "user_id": "bob smith"},
            {"id": "m-4", "memory": ""},
        ]
    }
    path = write(tmp_path / "mem0.json", json.dumps(export, indent=2))

    summary = run_import("mem0", str(path), "--bot", "scout", "--map-user", "u_17=alice")

    files = tree(memory_root)
    assert facts_of(files["users/alice/memory/by-agent/scout/log/2026-01.md"]) == [
        "- (2026-01-09) Is vegetarian <!-- category=food,user_preferences type=preference "
        "src=mem0.json:4 via=import -->"
    ]
    assert facts_of(files["agents/scout/memory/log/2026-01.md"])[0].startswith(
        "- (2026-01-10) Team standup is at 9 <!-- src=mem0.json:14"
    )
    assert (
        summary.splitlines()[0] == "Imported 2 facts; 0 already there; 0 refused; 2 lines skipped."
    )
    assert "'bob smith' is not a person's name" in summary


def test_basic_memory_observations_become_typed_facts(scout, tmp_path, memory_root):
    note = (
        "---\ntitle: Coffee Brewing\ntype: note\ncreated: 2026-01-03\n---\n\n# Coffee Brewing\n\n"
        "## Observations\n- [decision] Buy a burr grinder #gear #coffee\n"
        "- [technique] Pour over needs 94 C water\n\n## Relations\n- relates_to [[Tea]]\n"
        "- [x] Buy beans (a task, not an observation)\n"
    )
    write(tmp_path / "vault/coffee.md", note)

    summary = run_import(
        "basic-memory", str(tmp_path / "vault"), "--bot", "scout", "--project", "apollo"
    )

    log = tree(memory_root)["projects/apollo/memory/by-agent/scout/log/2026-01.md"]
    assert facts_of(log) == [
        "- (2026-01-03) Coffee Brewing: Buy a burr grinder <!-- type=decision category=decision "
        "tags=gear,coffee src=coffee.md:10 via=import -->",
        "- (2026-01-03) Coffee Brewing: Pour over needs 94 C water <!-- type=fact "
        "category=technique src=coffee.md:11 via=import -->",
    ]
    assert "a relation: links between facts are not stored yet (e.g. coffee.md:14)" in summary


def test_excluded_topics_apply_and_a_dry_run_writes_nothing(scout, tmp_path, memory_root):
    user = User.objects.create(username="alice")
    PersonSettings.objects.create(user=user, excluded_topics=["health"])
    path = write(
        tmp_path / "m.json",
        json.dumps(
            [
                {"memory": "Has a health condition", "user_id": "alice"},
                {"memory": "Likes jazz", "user_id": "alice"},
            ]
        ),
    )

    dry = run_import("mem0", str(path), "--bot", "scout", "--dry-run")
    assert (
        dry.splitlines()[0] == "Would import 1 facts; 0 already there; 1 refused; 0 lines skipped."
    )
    assert "topic_excluded" in dry
    assert tree(memory_root) == {}

    summary = run_import("mem0", str(path), "--bot", "scout")
    assert (
        summary.splitlines()[0] == "Imported 1 facts; 0 already there; 1 refused; 0 lines skipped."
    )
    assert "topic_excluded" in summary
    assert "health" not in "".join(tree(memory_root).values())


def test_bad_arguments_are_clear_errors(scout, tmp_path):
    with pytest.raises(CommandError, match="No such file"):
        run_import("claude", str(tmp_path / "missing"), "--bot", "scout")
    with pytest.raises(CommandError, match="No bot 'nobody'"):
        run_import("claude", str(tmp_path), "--bot", "nobody")
