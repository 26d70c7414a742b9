"""A data folder made by an older PostgreSQL (pgserver's 16) is moved aside, never deleted, and a
new one is made; one whose old server still runs is refused with a message saying so."""

import os
import shutil
import subprocess

import pytest
from django.core.exceptions import ImproperlyConfigured

from memoryconsole.embedded_postgres.versions import bundled_version, older_folder_aside


def old_folder(parent, major="16"):
    pgdata = parent / "pgdata"
    pgdata.mkdir()
    (pgdata / "PG_VERSION").write_text(f"{major}\n")
    (pgdata / "base").mkdir()
    (pgdata / "base" / "accounts").write_text("the old cluster's bytes")
    return pgdata


def test_the_bundled_server_is_postgresql_18():
    assert bundled_version() // 10000 == 18


def test_an_older_folder_is_moved_aside_with_everything_in_it(tmp_path):
    pgdata = old_folder(tmp_path)
    aside = older_folder_aside(pgdata)
    assert aside == tmp_path / "pgdata-pg16"
    assert not pgdata.exists()
    assert (aside / "base" / "accounts").read_text() == "the old cluster's bytes"
    # A second old folder later never overwrites the first one kept.
    again = older_folder_aside(old_folder(tmp_path))
    assert again == tmp_path / "pgdata-pg16-2" and (aside / "PG_VERSION").exists()


def test_a_current_or_new_folder_is_left_alone(tmp_path):
    assert older_folder_aside(tmp_path / "pgdata") is None
    current = old_folder(tmp_path, str(bundled_version() // 10000))
    assert older_folder_aside(current) is None and current.exists()


def test_an_older_folder_whose_server_still_runs_is_refused(tmp_path):
    pgdata = old_folder(tmp_path)
    # A live process named postgres holds the lock file (a copy of sleep under that name).
    postgres = tmp_path / "postgres"
    shutil.copy(shutil.which("sleep"), postgres)
    holder = subprocess.Popen([postgres, "30"])
    try:
        (pgdata / "postmaster.pid").write_text(f"{holder.pid}\n{pgdata}\n")
        with pytest.raises(ImproperlyConfigured, match="PostgreSQL 16 and its server is still"):
            older_folder_aside(pgdata)
        assert pgdata.exists()
    finally:
        holder.kill()
        holder.wait()


def test_a_stale_lock_file_of_another_program_does_not_block_the_move(tmp_path):
    pgdata = old_folder(tmp_path)
    (pgdata / "postmaster.pid").write_text(f"{os.getpid()}\n{pgdata}\n")  # python's, alive
    assert older_folder_aside(pgdata) == tmp_path / "pgdata-pg16"
