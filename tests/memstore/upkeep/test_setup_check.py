"""`memory-console doctor`'s checks against a real database: what is set up is said as such,
what is not comes with the one thing to do, and the command exits 1 while anything is wrong."""

import pytest
from django.core.management import call_command

from memstore.upkeep.setup_check import setup_checks

pytestmark = pytest.mark.django_db


def test_a_migrated_database_without_a_worker(settings):
    settings.LEARNING_BASE_URL = ""
    checks = {check.name: check for check in setup_checks()}
    assert checks["database"].ok and "migrated" in checks["database"].found
    assert checks["memory volume"].ok
    assert checks["search language"].ok
    worker = checks["worker"]
    assert not worker.ok and worker.found.startswith("none alive")
    assert "learning_worker" in worker.fix
    assert "not configured" in checks["learning model"].found


def test_words_only_on_purpose_is_not_a_problem(settings):
    settings.EMBEDDINGS = "none"
    check = {check.name: check for check in setup_checks()}["embedding model"]
    assert check.ok and "EMBEDDINGS=none" in check.found


def test_the_command_lists_every_check_and_exits_1_while_one_fails(capsys, monkeypatch):
    monkeypatch.setenv("PORT", "1")  # nothing answers there
    with pytest.raises(SystemExit) as exited:
        call_command("doctor")
    out = capsys.readouterr().out
    assert exited.value.code == 1
    for name in ("data folder", "database", "search language", "embedding model", "worker"):
        assert f" {name}: " in out
    assert "✗ server: nothing answers on 127.0.0.1:1" in out and "→ start it:" in out
