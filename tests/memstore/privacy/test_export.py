"""`manage.py export`: a zip of the Markdown tree as on disk plus facts.jsonl, for one bot, one
person or everything; unzipped, it is a memory folder that `import openteam` reads back."""

import json
import zipfile
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memstore.registry.bots import bot_create
from memstore.registry.people import person_add

FILES = {
    "agents/scout/memory/profile.md": "# Profile\n\n- (2026-01-05) Writes in British English\n",
    "agents/scout/memory/log/2026-03.md": (
        "- (2026-03-02) [note] Likes rooftop venues\n"
        "- (2026-03-04) Internal only <!-- visibility=hidden -->\n"
    ),
    "agents/ava/memory/profile.md": "- (2026-01-01) Ava's own fact\n",
    "users/alice/memory/by-agent/scout/profile.md": "- (2026-02-01) Prefers tea\n",
    "users/alice/memory/by-agent/ava/log/2026-02.md": "- (2026-02-03) Runs on Sundays\n",
    "projects/apollo/memory/by-agent/scout/log/2026-02.md": "- (2026-02-10) Launch in May\n",
}


@pytest.fixture
def memory(memory_root):
    for rel, text in FILES.items():
        path = memory_root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return memory_root


def export(*args: str) -> str:
    out = StringIO()
    call_command("export", *args, stdout=out)
    return out.getvalue()


def contents(path) -> tuple[dict[str, str], list[dict]]:
    with zipfile.ZipFile(path) as archive:
        files = {n: archive.read(n).decode() for n in archive.namelist() if n.endswith(".md")}
        facts = [json.loads(line) for line in archive.read("facts.jsonl").decode().splitlines()]
    return files, facts


def test_export_a_bot_with_every_shard_it_wrote(memory, tmp_path):
    out = tmp_path / "scout.zip"
    assert export("--bot", "scout", str(out)) == (
        f"Exported 4 files and 5 facts to {out} (Markdown tree + facts.jsonl).\n"
    )
    files, facts = contents(out)
    assert files == {rel: text for rel, text in FILES.items() if "scout" in rel}
    assert facts[1] == {
        "id": facts[1]["id"],
        "date": "2026-03-02",
        "text": "[note] Likes rooftop venues",
        "tier": "note",
        "scope": "bot",
        "scope_name": "scout",
        "bot": "scout",
        "file": "agents/scout/memory/log/2026-03.md",
        "line": 1,
        "visibility": "context",
        "meta": {},
    }
    assert facts[2]["visibility"] == "hidden"  # people exporting see everything


def test_export_a_person_and_everything(memory, tmp_path):
    export("--person", "alice", str(tmp_path / "alice.zip"))
    files, facts = contents(tmp_path / "alice.zip")
    assert sorted(files) == [
        "users/alice/memory/by-agent/ava/log/2026-02.md",
        "users/alice/memory/by-agent/scout/profile.md",
    ]
    assert {f["bot"] for f in facts} == {"ava", "scout"}

    export("--all", str(tmp_path / "all.zip"))
    files, facts = contents(tmp_path / "all.zip")
    assert files == FILES
    assert len(facts) == 7


def test_an_export_imports_back_unchanged(db, memory, tmp_path, settings):
    bot_create(slug="scout")
    person_add(name="alice")  # an import never registers people on its own
    export("--bot", "scout", str(tmp_path / "scout.zip"))
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(tmp_path / "scout.zip") as archive:
        archive.extractall(unpacked)
    settings.MEMORY_ROOT = tmp_path / "fresh"
    settings.MEMORY_ROOT.mkdir()
    call_command(
        "import", "openteam", str(unpacked), "--bot", "scout", stdout=StringIO(), stderr=StringIO()
    )
    _, before = contents(tmp_path / "scout.zip")
    export("--bot", "scout", str(tmp_path / "again.zip"))
    _, after = contents(tmp_path / "again.zip")
    assert [(f["file"], f["date"], f["text"], f["tier"]) for f in after] == [
        (f["file"], f["date"], f["text"], f["tier"]) for f in before if f["scope"] != "project"
    ]  # project memory needs the bot to join the project first: refused, and said so


def test_bad_selections_are_clear_errors(memory, tmp_path):
    with pytest.raises(CommandError, match="one of the arguments"):
        export(str(tmp_path / "x.zip"))
    with pytest.raises(CommandError, match="not allowed"):
        export("--person", "../etc", str(tmp_path / "x.zip"))
    with pytest.raises(CommandError, match="is a folder"):
        export("--all", str(tmp_path))
