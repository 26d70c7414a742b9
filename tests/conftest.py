"""Shared fixtures: every test gets its own empty MEMORY_ROOT on real disk and the real Postgres."""

import pytest


@pytest.fixture(autouse=True)
def memory_root(tmp_path, settings):
    """A fresh memory folder for each test (the files are the truth, so tests write files)."""
    root = tmp_path / "memory"
    root.mkdir()
    settings.MEMORY_ROOT = root
    return root
