"""Memory at rest is readable by the service's user only: every file the product writes
(facts, history, the failure log, note versions, the demo's files) is 0600 and every folder 0700, or 0640/0750
with MEMORY_FILE_MODE=0640, exactly, whatever the umask; a rewritten hand-made 0644 file
takes the memory mode too; so does an export (a copy of memory)."""

import io
import os
import stat

import pytest
from django.core.management import call_command

from memstore.facts.files import read_snapshot, write_atomic
from memstore.registry.bots import bot_create, project_join
from memstore.registry.people import person_add, person_link
from memstore.registry.tokens import token_create
from tests.helpers import BotClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def umask():
    def set_umask(mask: int) -> None:
        os.umask(mask)

    old = os.umask(0o022)
    yield set_umask
    os.umask(old)


def modes(root) -> dict[str, set[int]]:
    found: dict[str, set[int]] = {"files": set(), "folders": set()}
    for path in root.rglob("*"):
        kind = "folders" if path.is_dir() else "files"
        found[kind].add(stat.S_IMODE(path.stat().st_mode))
    return found


def use_every_writer(root) -> None:
    bot_create(slug="ava")
    project_join(bot="ava", project="apollo")
    person_add(name="alice")
    person_link(person="alice", bot="ava")
    ava = BotClient(token=token_create(bot="ava").token, projects="apollo")
    for body in (
        {"text": "Likes tea", "scope": "user"},
        {"text": "Launch is in March", "scope": "project", "project": "apollo"},
        {"text": "Answers in English", "tier": "profile"},
    ):
        assert ava.post("/facts", body).status == 201
    assert ava.post("/facts", {"text": "my password is hunter2x"}).status == 422  # failure log
    for text in ("Be brief.", "Be brief and kind."):  # the second keeps a version of the first
        assert ava.put("/notes/me", {"text": text}).status in (200, 201)
    assert {"history.jsonl", "failures.jsonl"} <= {p.name for p in root.rglob("*.jsonl")}


@pytest.mark.parametrize(
    ("setting", "mask", "file_mode", "folder_mode"),
    [(0o600, 0o022, 0o600, 0o700), (0o600, 0, 0o600, 0o700), (0o640, 0o077, 0o640, 0o750)],
)
def test_every_file_and_folder_gets_the_memory_mode(
    memory_root, settings, umask, setting, mask, file_mode, folder_mode
):
    settings.MEMORY_FILE_MODE = setting
    umask(mask)
    use_every_writer(memory_root)
    assert modes(memory_root) == {"files": {file_mode}, "folders": {folder_mode}}


def test_a_hand_made_world_readable_file_is_rewritten_private(memory_root, umask):
    path = memory_root / "bots/ava/memory/profile.md"
    path.parent.mkdir(parents=True)
    path.write_text("# Profile\n")
    path.chmod(0o644)
    before = read_snapshot(path)
    write_atomic(path, before.text + "- (2026-11-01) Likes tea\n", expected=before.signature)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_export_is_as_private_as_memory(memory_root, tmp_path, umask):
    use_every_writer(memory_root)
    call_command("export", "--all", str(tmp_path / "memory.zip"))
    assert stat.S_IMODE((tmp_path / "memory.zip").stat().st_mode) == 0o600


def test_the_demo_writes_memory_as_privately(memory_root, umask):
    # Its "hand-written" profile too: every file the product writes gets the memory mode.
    call_command("demo", stdout=io.StringIO())
    assert modes(memory_root) == {"files": {0o600}, "folders": {0o700}}
