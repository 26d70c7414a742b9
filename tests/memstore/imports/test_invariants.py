"""What every import guarantees: an export -> import round trip gives the same files, an
interrupted import is finished by the next run, a symbolic link is never followed, bad input
gets a clear line, and the parsers hold up on any text (hypothesis)."""

import json
import shutil
import zipfile
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memstore.facts.markdown import MAX_TEXT_CHARS
from memstore.imports import Target, import_run
from memstore.imports.chat import Turn, chunked
from memstore.imports.walk import body_facts, front_matter
from memstore.models import Bot, Person, PersonSettings
from memstore.registry.bots import bot_create, project_join
from memstore.registry.people import person_add, person_link
from memstore.rooms.context import context_open
from memstore.store.in_room import remember_in_room
from memstore.store.links import bot_link_add
from tests.helpers import run_command
from tests.memstore.imports.common import all_facts, md_tree, run_import, write


@pytest.fixture
def scout(db):
    bot_create(slug="scout")
    project_join(bot="scout", project="apollo")
    person_add(name="alice")
    person_link(person="alice", bot="scout")
    return "scout"


def test_export_then_import_gives_the_same_files(scout, tmp_path, memory_root):
    own = context_open(bot="scout", room_id="r", room_kind="routine", projects=["apollo"])
    dm = context_open(bot="scout", room_id="dm", room_kind="direct", person="alice")
    first = remember_in_room(
        ctx=own,
        text="Writes in British English",
        tier="profile",
        meta={"type": "preference", "importance": "0.8"},
    )
    second = remember_in_room(
        ctx=own,
        text="Launch moved to May",
        scope="project",
        project="apollo",
        day=date(2026, 2, 3),
        via="console",
    )
    remember_in_room(ctx=own, text="A minor detail", tier="note", day=date(2026, 2, 4))
    remember_in_room(ctx=dm, text="Alice prefers tea", scope="user", tier="profile", via="tool")
    bot_link_add(ctx=own, fact_id=first.fact_id, kind="related_to", target=second.fact_id)
    before = md_tree(memory_root)

    run_command("export", "--all", str(tmp_path / "all.zip"))
    with zipfile.ZipFile(tmp_path / "all.zip") as archive:
        archive.extractall(tmp_path / "unzipped")
    for child in memory_root.iterdir():
        shutil.rmtree(child) if child.is_dir() else child.unlink()
    run_command("reindex")
    Bot.objects.all().delete()  # a fresh workspace: no bots, people or memberships
    Person.objects.all().delete()

    summary = run_import(
        "openteam",
        str(tmp_path / "unzipped"),
        "--create-bots",
        "--create-people",
        "--create-projects",
    )

    assert summary.splitlines() == [
        "Imported 4 facts; 0 already there; 0 refused; 0 lines skipped.",
        "  created bot scout",
        "  joined project apollo as bot scout (projects/apollo/memory/by-agent/scout)",
        "  created person alice",
        "  linked person alice to bot scout",
    ]
    assert md_tree(memory_root) == before


def test_an_interrupted_import_is_finished_by_the_next_run(scout, tmp_path, memory_root):
    folder = tmp_path / "memfs" / "system"
    write(folder / "persona.md", "".join(f"- Fact number {i}\n" for i in range(6)))
    target = Target(bot="scout")

    def crash(done: int, total: int) -> None:
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        import_run(kind="letta", path=tmp_path / "memfs", target=target, progress=crash)
    assert len(all_facts(memory_root)["agents/scout/memory/profile.md"]) == 3

    report = import_run(kind="letta", path=tmp_path / "memfs", target=target)
    assert (report.imported, report.existing) == (3, 3)
    assert [
        f.split(") ")[1].split(" <!--")[0]
        for f in all_facts(memory_root)["agents/scout/memory/profile.md"]
    ] == [f"Fact number {i}" for i in range(6)]


def test_a_symlinked_profile_never_copies_private_memory(scout, tmp_path, memory_root):
    data = tmp_path / "agent-data"
    private = write(
        data / "users" / "alice" / "memory" / "by-agent" / "scout" / "profile.md",
        "- (2026-01-02) Alice's diagnosis is private\n",
    )
    outside = write(tmp_path / "elsewhere.md", "- (2026-01-03) Outside the folder\n")
    (data / "agents" / "scout" / "memory" / "log").mkdir(parents=True)
    (data / "agents" / "scout" / "memory" / "profile.md").symlink_to(private)
    (data / "agents" / "scout" / "memory" / "log" / "2026-01.md").symlink_to(outside)
    (data / "projects").mkdir()
    (data / "projects" / "apollo").symlink_to(tmp_path)
    elsewhere = tmp_path / "elsewhere" / "by-agent" / "scout"
    write(elsewhere / "profile.md", "- (2026-01-04) Planted through a linked folder\n")
    (data / "user-memory").symlink_to(tmp_path / "elsewhere")

    summary = run_import("openteam", str(data), "--person", "alice")

    # Alice's fact stays where it is hers; the links planting it in team-wide memory are not read.
    assert list(all_facts(memory_root)) == ["users/alice/memory/by-agent/scout/profile.md"]
    assert "user-memory/by-agent:0" in summary
    assert "skipped 1: a symbolic link (inside the folder): links are never followed" in summary
    assert "skipped 1: a symbolic link (out of the folder): links are never followed" in summary
    assert "skipped 2: a symbolic link: links are never followed (e.g. " in summary
    assert "projects/apollo:0" in summary


def test_bad_input_gets_a_clear_line(scout, tmp_path, memory_root):
    user = PersonSettings.objects.create(user=_user("alice"), excluded_topics=["health"])
    assert user.excluded_topics == ["health"]
    vault = tmp_path / "vault"
    write(vault / "system" / "human.md", "- Alice has a health condition\n- " + "y" * 600 + "\n")
    (vault / "system" / "binary.md").write_bytes(b"\xff\xfe not text")

    summary = run_import("letta", str(vault), "--bot", "scout", "--person", "alice")

    assert md_tree(memory_root) == {}
    assert "topic_excluded" in summary
    assert f"the limit is {MAX_TEXT_CHARS}" in summary
    assert "unreadable file: not UTF-8" in summary


def _user(name: str):
    from django.contrib.auth.models import User

    return User.objects.create(username=name)


@given(
    st.lists(
        st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80), max_size=30
    )
)
@settings(max_examples=200, deadline=None)
def test_body_facts_are_single_lines_from_the_body(lines):
    facts = list(body_facts(lines))
    assert all("\n" not in text and text == text.strip() and text for _, text in facts)
    assert all(1 <= number <= len(lines) for number, _ in facts)
    assert [n for n, _ in facts] == sorted(n for n, _ in facts)


@given(
    st.dictionaries(
        st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True),
        st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=30).map(
            str.strip
        ),
        max_size=5,
    )
)
@settings(max_examples=200, deadline=None)
def test_front_matter_reads_back_json_quoted_values(values):
    lines = ["---", *(f"{k}: {json.dumps(v)}" for k, v in values.items()), "---", "body"]
    front, start = front_matter(lines)
    assert front == values and lines[start] == "body"


@given(st.lists(st.text(min_size=1, max_size=300), max_size=40), st.integers(50, 400))
@settings(max_examples=200, deadline=None)
def test_chunks_keep_every_turn_in_order_within_the_size(texts, size):
    turns = [Turn(f"chat.txt:{i}", t) for i, t in enumerate(texts, 1)]
    chunks = chunked(turns, size)
    assert all(len(text) <= size for _, text in chunks)
    joined = "".join(text.replace("\n", "") for _, text in chunks)
    assert joined == "".join(t.replace("\n", "") for t in texts)


def test_bad_arguments_are_clear_errors(scout, tmp_path):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="No such file"):
        run_import("claude", str(tmp_path / "missing"), "--bot", "scout")
    with pytest.raises(CommandError, match="No bot 'nobody'"):
        run_import("claude", str(tmp_path), "--bot", "nobody")
    with pytest.raises(CommandError, match="Name the bot that saves the facts with --bot"):
        run_import("mem0", str(tmp_path))
    with pytest.raises(CommandError, match="--map-user takes KEY=NAME"):
        run_import("mem0", str(tmp_path), "--bot", "scout", "--map-user", "u17")
