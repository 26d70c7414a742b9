"""`manage.py memory` and `manage.py reindex`, called as a script would call them."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from memstore.facts.markdown import fact_identity
from memstore.models import Fact
from tests.helpers import run_command

pytestmark = pytest.mark.django_db


def test_remember_list_search_and_forget(memory_root):
    assert (
        run_command("memory", "remember", "ada", "Likes tea", "--date", "2026-03-01")
        == "Remembered b0b78b71840803ed in agents/ada/memory/log/2026-03.md\n"
    )
    run_command(
        "memory", "remember", "ada", "Is the ops bot", "--tier", "profile", "--date", "2026-03-02"
    )
    run_command("memory", "remember", "ada", "Alice likes tea too", "--scope", "user:alice")
    ops = fact_identity("Is the ops bot")
    assert (
        f"2026-03-02  {ops}  profile  bot:ada               Is the ops bot\n"
        "2026-03-01  b0b78b71840803ed  log      bot:ada               Likes tea\n"
        "2 facts\n"
    ) == run_command("memory", "list", "ada")
    assert (
        run_command("memory", "list", "ada", "--limit", "1").splitlines(keepends=True)[-1]
        == "2 facts (1 more not shown; use --limit)\n"
    )
    found = run_command("memory", "search", "ada", "tea", "--scope", "user:alice")
    assert "Likes tea" in found and "Alice likes tea too" in found
    assert (
        run_command("memory", "forget", "ada", "b0b78b71840803ed")
        == "Forgot b0b78b71840803ed from agents/ada/memory/log/2026-03.md\n"
    )
    assert "Forgot" in run_command("memory", "forget", "ada", "--text", "ALICE likes  tea too")
    assert "Is the ops bot" in (memory_root / "agents/ada/memory/profile.md").read_text()
    assert list(Fact.objects.values_list("text", flat=True)) == ["Is the ops bot"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("remember", "ada", "x", "--date", "2026-02-30"), "not a real calendar date"),
        (("remember", "ada", "x" * 501), "the limit is 500"),
        (("remember", "ada", "two\nlines"), "line break"),
        (("remember", "../etc", "x"), "Bot name '../etc' is not allowed"),
        (("remember", "ada", "x", "--scope", "team:x"), "use bot, user:NAME or project:SLUG"),
        (("remember", "ada", "x", "--scope", "user:../x"), "Person name"),
        (("remember", "ada", "password: hunter22", "--scope", "project:x"), "secrets"),
        (("forget", "ada", "0123456789abcdef"), "No fact with that id"),
        (("forget", "ada"), "Give the fact's ID or --text"),
    ],
)
def test_errors_are_one_clear_line(memory_root, args, message):
    with pytest.raises(CommandError, match=message.replace("(", r"\(")):
        call_command("memory", *args, stdout=StringIO(), stderr=StringIO())
    assert not any(memory_root.rglob("*.md"))


def test_reindex_rebuilds_from_files_with_progress_and_a_summary(memory_root):
    log = memory_root / "agents/ada/memory/log/2026-03.md"
    log.parent.mkdir(parents=True)
    log.write_text("# Log\n- (2026-03-01) One\n- (2026-03-02) Two\n")
    bad = memory_root / "projects/apollo/memory/by-agent/bob/profile.md"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"- (2026-03-01) caf\xe9\n")
    out, err = StringIO(), StringIO()
    call_command("reindex", stdout=out, stderr=err)
    assert out.getvalue().startswith("Indexed 2 files, 3 facts in ")
    assert "(1 unreadable file)." in out.getvalue()
    assert "2/2 files" in err.getvalue() and "files/s" in err.getvalue()
    assert {"One", "Two", "caf\ufffd"} == set(Fact.objects.values_list("text", flat=True))
