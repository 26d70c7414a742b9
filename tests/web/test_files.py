"""A bot's files as files: prose kept, lines that look like facts but are not pointed out."""

import pytest

from tests.helpers import day, plain, write_memory

pytestmark = pytest.mark.django_db


def test_files_list_and_one_file_line_by_line(ann, workspace):
    write_memory(
        workspace,
        "agents/ava/memory/log/2019-05.md",
        "Some prose a person wrote.",
        f"- ({day(3)}) A real fact",
        "- (2019-02-30) An impossible date",
        "- 2019-05-01 no brackets",
    )
    listing = plain(ann.get("/bots/ava/files/"))
    assert "agents/ava/memory/log/2019-05.md own 1" in listing
    assert "users/ann/memory/by-agent/ava/profile.md about ann 1" in listing
    assert "users/sam" not in listing
    html = ann.get("/bots/ava/files/?path=agents/ava/memory/log/2019-05.md").content.decode()
    assert html.count("not a fact</span>") == 2
    assert "2 lines look like a fact but are not read as one" in plain(
        ann.get("/bots/ava/files/?path=agents/ava/memory/log/2019-05.md")
    )
    assert "Some prose a person wrote." in html


def test_files_outside_memory_or_private_are_not_shown(ann, workspace):
    for path in ("../../etc/passwd", "users/sam/memory/by-agent/ava/profile.md", "agents/ava/x"):
        assert ann.get("/bots/ava/files/", {"path": path}).status_code == 403
