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
