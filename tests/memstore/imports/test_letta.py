"""`manage.py import letta`: a Letta Code MemFS folder as Letta writes it.

The layout reproduced is the one Letta documents (docs.letta.com, "MemFS" in Letta Code and
"MemFS" in the agent concepts): a local git repository of Markdown files, each with YAML front
matter holding a `description`, `system/` (`persona.md`, `human.md`) loaded into the system
prompt on every turn, other folders (`reference/project-notes.md`) read when relevant, and
`skills/<name>/SKILL.md` for skills. Every memory edit is a commit.
"""

import os
import subprocess
from pathlib import Path

import pytest

from memstore.registry.bots import bot_create
from memstore.registry.people import person_add
from tests.memstore.imports.common import all_facts, run_import, write

PERSONA = """---
description: "Who I am, what I value, and how I approach working with people."
---
I am Scout, a research agent. I remember durable preferences and improve with use.

- Answer with the decision first, then the reasons
"""
HUMAN = """---
description: "What I know about the person I work with."
---
# Sam

- Sam works on the Apollo launch
- Prefers short answers
"""
NOTES = """---
description: "Notes about the Apollo project."
---
## Build

The build runs on arm64 runners since January.

```sh
make test
```
"""
SKILL = """---
name: release
description: "How to cut a release"
---
- Tag, then push
"""


def git(root: Path, *args: str, day: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": f"{day}T12:00:00",
        "GIT_COMMITTER_DATE": f"{day}T12:00:00",
        "GIT_AUTHOR_NAME": "letta",
        "GIT_AUTHOR_EMAIL": "letta@example.com",
        "GIT_COMMITTER_NAME": "letta",
        "GIT_COMMITTER_EMAIL": "letta@example.com",
    }
    subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True)


@pytest.fixture
def memfs(tmp_path) -> Path:
    root = tmp_path / "letta" / "agents" / "agent-3f0c" / "memory"
    write(root / "system" / "persona.md", PERSONA)
    write(root / "system" / "human.md", HUMAN)
    write(root / "skills" / "release" / "SKILL.md", SKILL)
    git(root, "init", "-q", day="2026-01-04")
    git(root, "add", "-A", day="2026-01-04")
    git(root, "commit", "-qm", "memory: init", day="2026-01-04")
    write(root / "reference" / "project-notes.md", NOTES)
    git(root, "add", "-A", day="2026-02-20")
    git(root, "commit", "-qm", "memory: project notes", day="2026-02-20")
    return root


def test_system_files_are_profile_the_rest_log_dated_by_git(memfs, memory_root, db):
    bot_create(slug="scout")
    person_add(name="sam")

    summary = run_import("letta", str(memfs), "--bot", "scout", "--person", "sam")

    assert all_facts(memory_root) == {
        "agents/scout/memory/profile.md": [
            "- (2026-01-04) I am Scout, a research agent. I remember durable preferences and "
            "improve with use. <!-- src=system/persona.md:4 by=scout via=import -->",
            "- (2026-01-04) Answer with the decision first, then the reasons <!-- "
            "src=system/persona.md:6 by=scout via=import -->",
        ],
        "users/sam/memory/by-agent/scout/profile.md": [
            "- (2026-01-04) Sam works on the Apollo launch <!-- src=system/human.md:6 by=scout via=import -->",
            "- (2026-01-04) Prefers short answers <!-- src=system/human.md:7 by=scout via=import -->",
        ],
        "agents/scout/memory/log/2026-02.md": [
            "- (2026-02-20) The build runs on arm64 runners since January. <!-- "
            "src=reference/project-notes.md:6 by=scout via=import -->"
        ],
    }
    assert summary.splitlines()[0] == (
        "Imported 5 facts; 0 already there; 0 refused; 0 lines skipped."
    )
    assert "  linked person sam to bot scout" in summary.splitlines()


def test_without_git_history_files_are_dated_by_their_last_change(tmp_path, memory_root, db):
    from datetime import date

    bot_create(slug="scout")
    root = tmp_path / "memfs"
    write(root / "system" / "persona.md", PERSONA, day=date(2026, 3, 9))

    run_import("letta", str(root), "--bot", "scout")

    assert [line[:14] for line in all_facts(memory_root)["agents/scout/memory/profile.md"]] == [
        "- (2026-03-09)",
        "- (2026-03-09)",
    ]
