"""`manage.py import claude`: Claude Code's memory as it lays it out.

Reproduced from Claude Code's memory docs (docs.anthropic.com, "Manage Claude's memory") and its
memory instructions: `~/.claude/CLAUDE.md` and `~/.claude/rules/*.md` for the user; in a
repository `CLAUDE.md`, `.claude/CLAUDE.md`, `.claude/rules/*.md`, `CLAUDE.local.md` and nested
`<dir>/CLAUDE.md`, with `@path` import lines; auto memory in
`~/.claude/projects/<project path with / turned into ->/memory/`: `MEMORY.md`, an index of
one-line links `- [Title](file.md) — hook`, and one topic file per memory with front matter
`name`, `description`, `type` (user, feedback, project, reference); session transcripts
(`<session>.jsonl`) beside the memory folder.
"""

from datetime import date

import pytest

from memstore.registry.bots import bot_create, project_join
from memstore.registry.people import person_add
from tests.memstore.imports.common import all_facts, run_import, write

DAY = date(2026, 2, 14)


def topic(name: str, description: str, kind: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n\n{body}\n"


@pytest.fixture
def scout(db):
    bot_create(slug="scout")
    project_join(bot="scout", project="apollo")
    person_add(name="sam")
    return "scout"


def test_home_folder_auto_memory_and_instructions(scout, tmp_path, memory_root):
    home = tmp_path / "home" / ".claude"
    write(home / "CLAUDE.md", "# Preferences\n\n- Use uv for Python\n@~/.claude/extra.md\n", DAY)
    write(home / "rules" / "style.md", "- Keep lines under 100 characters\n", DAY)
    apollo = home / "projects" / "-home-sam-apollo"
    write(
        apollo / "memory" / "MEMORY.md",
        (
            "- [User role](user_role.md) — Sam is a data scientist\n"
            "- [No summaries](feedback_no_summaries.md) — no closing summary\n"
            "- [Merge freeze](project_merge_freeze.md) — freeze from 2026-03-05\n"
        ),
        DAY,
    )
    write(
        apollo / "memory" / "user_role.md",
        topic(
            "User role", "Sam's role", "user", "Sam is a data scientist focused on observability."
        ),
        DAY,
    )
    write(
        apollo / "memory" / "feedback_no_summaries.md",
        topic(
            "No summaries",
            "How Sam wants replies to end",
            "feedback",
            "Don't end replies with a summary of what was done.\n\n**Why:** Sam reads the diff.",
        ),
        DAY,
    )
    write(
        apollo / "memory" / "project_merge_freeze.md",
        topic(
            "Merge freeze",
            "The release freeze",
            "project",
            "Merge freeze begins 2026-03-05 for the mobile release cut.",
        ),
        DAY,
    )
    write(apollo / "4a1d2c3b-session.jsonl", '{"type": "user"}\n', DAY)
    other = home / "projects" / "-home-sam-other" / "memory"
    write(other / "MEMORY.md", "# Memory\n- 2026-01-20: Moved CI to arm64\n", DAY)

    summary = run_import(
        "claude",
        str(home),
        "--bot",
        "scout",
        "--person",
        "sam",
        "--map-project=-home-sam-apollo=apollo",
    )

    assert all_facts(memory_root) == {
        "agents/scout/memory/profile.md": [
            "- (2026-02-14) Use uv for Python <!-- src=CLAUDE.md:3 by=scout via=import -->",
            "- (2026-02-14) Keep lines under 100 characters <!-- src=rules/style.md:1 "
            "by=scout via=import -->",
        ],
        "users/sam/memory/by-agent/scout/profile.md": [
            "- (2026-02-14) Sam is a data scientist focused on observability. <!-- "
            "src=projects/-home-sam-apollo/memory/user_role.md:7 by=scout via=import -->"
        ],
        "projects/apollo/memory/by-agent/scout/profile.md": [
            "- (2026-02-14) Don't end replies with a summary of what was done. **Why:** Sam "
            "reads the diff. <!-- type=preference src=projects/-home-sam-apollo/memory/"
            "feedback_no_summaries.md:7 by=scout via=import -->"
        ],
        "projects/apollo/memory/by-agent/scout/log/2026-02.md": [
            "- (2026-02-14) Merge freeze begins 2026-03-05 for the mobile release cut. <!-- "
            "src=projects/-home-sam-apollo/memory/project_merge_freeze.md:7 by=scout via=import -->"
        ],
        "agents/scout/memory/log/2026-01.md": [
            "- (2026-01-20) Moved CI to arm64 <!-- src=projects/-home-sam-other/memory/"
            "MEMORY.md:2 by=scout via=import -->"
        ],
    }
    assert summary.splitlines()[0] == (
        "Imported 6 facts; 0 already there; 0 refused; 4 lines skipped."
    )
    assert "skipped 3: an index line linking a topic file" in summary
    assert "skipped 1: an @import of another file: not followed" in summary


def test_a_repository_claude_md_hierarchy_with_project(scout, tmp_path, memory_root):
    repo = tmp_path / "apollo"
    write(
        repo / "CLAUDE.md",
        "# Apollo\n\nProse is documentation.\n\n- Run `make test` first\n"
        "```\n- not a bullet, code\n```\n",
        DAY,
    )
    write(repo / ".claude" / "CLAUDE.md", "- Deploys go through the staging cluster\n", DAY)
    write(repo / ".claude" / "rules" / "api.md", "1. Version every endpoint\n", DAY)
    write(repo / "web" / "CLAUDE.md", "* The web app uses pnpm\n", DAY)
    write(repo / "CLAUDE.local.md", "- My sandbox is sam-dev\n", DAY)
    write(repo / "docs" / "guide.md", "- Not memory\n", DAY)

    summary = run_import(
        "claude", str(repo), "--bot", "scout", "--project", "apollo", "--person", "sam"
    )

    facts = all_facts(memory_root)
    assert [
        f.split(" <!--")[0][15:] for f in facts["projects/apollo/memory/by-agent/scout/profile.md"]
    ] == [
        "Deploys go through the staging cluster",
        "Version every endpoint",
        "Run `make test` first",
        "The web app uses pnpm",
    ]
    assert facts["users/sam/memory/by-agent/scout/profile.md"] == [
        "- (2026-02-14) My sandbox is sam-dev <!-- src=CLAUDE.local.md:1 by=scout via=import -->"
    ]
    assert "not CLAUDE.md, a rules file, nor in a memory folder (e.g. docs/guide.md:0)" in summary


def test_a_topic_file_of_prose_and_dated_bullets_is_one_fact_a_bullet(scout, tmp_path, memory_root):
    memory = tmp_path / ".claude" / "projects" / "-home-sam-apollo" / "memory"
    write(memory / "MEMORY.md", "- [Team](project_team.md) — who is on which team\n", DAY)
    write(
        memory / "project_team.md",
        topic(
            "Team",
            "Who is on which team",
            "project",
            "Teams change often; check this list before assigning reviews.\n\n"
            "- (2026-03-04) Lee moved to the platform team\n"
            "- 2026-01-12: Ana joined as the designer\n"
            "- Priya leads the data team\n",
        ),
        date(2026, 3, 10),
    )

    run_import("claude", str(tmp_path / ".claude"), "--bot", "scout")

    src = "src=projects/-home-sam-apollo/memory/project_team.md"
    assert all_facts(memory_root) == {
        "agents/scout/memory/log/2026-03.md": [
            "- (2026-03-10) Teams change often; check this list before assigning reviews. "
            f"<!-- {src}:7 by=scout via=import -->",
            f"- (2026-03-04) Lee moved to the platform team <!-- {src}:9 by=scout via=import -->",
            f"- (2026-03-10) Priya leads the data team <!-- {src}:11 by=scout via=import -->",
        ],
        "agents/scout/memory/log/2026-01.md": [
            f"- (2026-01-12) Ana joined as the designer <!-- {src}:10 by=scout via=import -->",
        ],
    }
