"""Settings: importing them, and commands that need no database, never start a database server."""

import os
import subprocess
import sys

from tests.helpers import REPO


def test_manage_check_runs_without_starting_the_embedded_postgres(tmp_path):
    # DATABASE_URL unset: the embedded server would live under VAR_DIR/pgdata once started.
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "MEMORY_ROOT"}}
    env |= {"VAR_DIR": str(tmp_path / "var"), "DJANGO_SETTINGS_MODULE": "memoryconsole.settings"}
    done = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout.strip()) == (
        0,
        "System check identified no issues (0 silenced).",
    ), done.stderr
    assert sorted(p.name for p in (tmp_path / "var").iterdir()) == ["secret_key"]


def settings_folders(cwd, **env) -> list[str]:
    """VAR_DIR, MEMORY_ROOT and the embedded database's folder as settings work them out."""
    clean = {k: v for k, v in os.environ.items() if k not in {"VAR_DIR", "MEMORY_ROOT"}}
    code = (
        "from django.conf import settings as s; "
        "print(s.VAR_DIR); print(s.MEMORY_ROOT); print(s.DATABASES['default']['PGDATA'])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=clean
        | {"DJANGO_SETTINGS_MODULE": "memoryconsole.settings", "PYTHONPATH": str(REPO)}
        | env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_data_folder_is_memory_console_home_then_var_dir(tmp_path):
    home = tmp_path / "home"
    assert settings_folders(tmp_path, MEMORY_CONSOLE_HOME=str(home)) == [
        str(home),
        str(home / "memory"),
        str(home / "pgdata"),
    ]
    older = tmp_path / "older"
    folders = settings_folders(tmp_path, MEMORY_CONSOLE_HOME=str(home), VAR_DIR=str(older))
    assert folders[0] == str(older)  # the older name wins when both are set
    # Neither set, in a checkout: the checkout's var, wherever the command runs from.
    assert settings_folders(tmp_path, MEMORY_CONSOLE_HOME="")[0] == str(REPO / "var")
