"""`manage.py memory erase` (a bot's reach, a person's, everything) and `manage.py memory
verify-forgotten` (every remaining occurrence listed, exit status 1 if any, 0 if none)."""

import pytest
from django.core.management import CommandError

from memstore.facts import markdown
from memstore.models import Exchange
from tests.helpers import (
    embed,
    exchange_stored,
    remaining,
    remaining_kinds,
    run_command,
    verify_forgotten_child,
    write_facts,
)

FACT = "Dana's flat is at 4 Rua Augusta"
FACT_ID = markdown.fact_identity(FACT)
FILES = {
    "own": "agents/ada/memory/profile.md",
    "dana-ada": "users/dana/memory/by-agent/ada/profile.md",
    "dana-ben": "users/dana/memory/by-agent/ben/profile.md",
    "ben-own": "agents/ben/memory/profile.md",
}


@pytest.fixture
def spread(memory_root, db):
    for rel in FILES.values():
        write_facts(memory_root, rel, FACT, "Something else entirely")
    embed(FACT)
    exchange_stored(bot="ada", person="dana", message=f"FYI {FACT}")
    exchange_stored(bot="ben", person="eve", message=f"FYI {FACT}")
    return memory_root


def files_left() -> set[str]:
    return {line.split()[1].split(":")[0] for line in remaining(FACT) if line.startswith("file")}


def test_verify_lists_every_kind_of_copy_by_text_and_by_id(spread):
    listed = remaining(FACT)
    assert {line.split()[0] for line in listed} == {
        "file", "index", "history", "embedding", "exchange", "learning",
    }  # fmt: skip
    assert files_left() == set(FILES.values())
    assert remaining(FACT_ID) == listed
    assert remaining(f"  {FACT.upper()} ") == listed  # case and spacing ignored


def test_command_erase_by_bot_reaches_every_shard_it_writes(spread):
    out = run_command("memory", "erase", "--bot", "ada", "--text", FACT, "--by", "ops")
    assert f"Erased {FACT_ID} from {FILES['own']}" in out
    assert f"Erased {FACT_ID} from {FILES['dana-ada']}" in out
    assert out.splitlines()[-1] == (
        "2 history line(s) tombstoned, 1 embedding(s) deleted, "
        "2 stored record(s) redacted (1 exchange, 1 learning)"
    )
    assert files_left() == {FILES["dana-ben"], FILES["ben-own"]}
    assert Exchange.objects.get(bot="ada").message == "FYI [erased]"
    assert Exchange.objects.get(bot="ben").message == f"FYI {FACT}"


def test_command_erase_by_person_reaches_every_bots_shard_of_them(spread):
    run_command("memory", "erase", "--person", "dana", FACT_ID, "--by", "dana")
    assert files_left() == {FILES["own"], FILES["ben-own"]}
    assert Exchange.objects.get(person="dana").message == "FYI [erased]"
    assert Exchange.objects.get(person="eve").message == f"FYI {FACT}"


def test_command_erase_all_then_verify_exits_0(spread):
    run_command("memory", "forget", "ada", "--text", FACT)
    assert "history" in remaining_kinds(FACT)  # a plain forget keeps it restorable
    run_command("memory", "erase", "--all", "--text", FACT, "--by", "ops")
    assert remaining(FACT) == []
    for rel in FILES.values():
        assert "Something else entirely" in (spread / rel).read_text()


def test_command_erase_refuses_bad_input(spread):
    with pytest.raises(CommandError, match="one of them"):
        run_command("memory", "erase", "--all", FACT_ID, "--text", FACT)
    with pytest.raises(CommandError, match="not allowed"):
        run_command("memory", "erase", "--person", "../etc", FACT_ID)
    with pytest.raises(CommandError, match="Nothing to erase"):
        run_command("memory", "erase", "--all", "--text", "Never said")
    assert files_left() == set(FILES.values())


@pytest.mark.django_db(transaction=True)
def test_verify_forgotten_exit_status_from_the_shell(spread):
    found = verify_forgotten_child(spread, FACT)
    assert found.returncode == 1, found.stderr
    assert f"file       {FILES['own']}:3" in found.stdout
    run_command("memory", "erase", "--all", "--text", FACT)
    clean = verify_forgotten_child(spread, FACT)
    assert (clean.returncode, clean.stdout.strip()) == (0, "No copy remains.")
