"""Several OS processes writing at once (SPEC §1.3, §4): nothing lost, nothing torn.

Each writer is a real process (`writer_process.py`) on the test database, so the per-bot lock
is the Postgres advisory lock working across processes, not a Python lock.
"""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection, connections

from memstore.facts.history import history_read
from memstore.facts.markdown import parse_text
from memstore.facts.paths import Scope, all_scopes, locate
from memstore.index import index_rebuild, index_sync
from memstore.models import Fact
from memstore.store.selectors import facts_list
from memstore.store.services import fact_remember
from tests.helpers import REPO, database_url, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def start_writer(memory_root: Path, scope: str, bot: str, prefix: str, count: int):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memoryconsole.settings",
        "DATABASE_URL": database_url(),
        "MEMORY_ROOT": str(memory_root),
        "PYTHONPATH": str(REPO),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "tests.memstore.writer_process", scope, bot, prefix, str(count)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_writers(memory_root: Path, jobs: list[tuple[str, str, str, int]]) -> None:
    connections.close_all()  # the children open their own connections
    procs = [start_writer(memory_root, *job) for job in jobs]
    for proc in procs:
        out, err = proc.communicate(timeout=300)  # correctness, not speed: a loaded box is slow
        assert proc.returncode == 0, err


def file_facts(memory_root: Path) -> list[str]:
    """Every fact text in every memory file, checking on the way that each file parses."""
    texts = []
    for path in memory_root.rglob("*.md"):
        if locate(str(path.relative_to(memory_root))) is None:
            continue
        content = path.read_bytes().decode("utf-8")  # raises if a write was torn mid-character
        for line in parse_text(content):
            assert line.raw.endswith("\n"), f"torn last line in {path}: {line.raw!r}"
            if line.raw.startswith("- ("):
                assert line.fact is not None, f"torn fact line in {path}: {line.raw!r}"
                texts.append(line.fact.text)
    return texts


def other_sessions() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def wait_for_other_sessions_to_end() -> None:
    # A killed writer's server process goes away once it notices the closed socket.
    wait_until(lambda: not other_sessions(), timeout=20)


def test_four_processes_into_one_bot_and_four_bots_into_one_project(memory_root):
    # Both at once, so the machine is as busy as it gets: ada's 1,000 writes all queue on
    # ada's lock; the four project writers each hold their own.
    jobs = [("bot", "ada", f"w{n}", 250) for n in range(4)]
    jobs += [("project:apollo", bot, bot, 250) for bot in ("bob", "cy", "dee", "eve")]
    run_writers(memory_root, jobs)
    texts = file_facts(memory_root)
    assert 2000 == len(texts) == len(set(texts))
    assert facts_list(scopes=[Scope("bot", "ada")]).total == 1000
    assert facts_list(scopes=[Scope("project", "apollo")]).total == 1000
    shards = sorted(p.name for p in (memory_root / "projects/apollo/memory/by-agent").iterdir())
    assert shards == ["bob", "cy", "dee", "eve"]
    changes = history_read(memory_root, Scope("bot", "ada").shard("ada"))
    assert 1000 == len(changes) == len({c.fact_id for c in changes})
    assert {("add", "api")} == {(c.op, c.via) for c in changes}
    index_rebuild()
    assert Fact.objects.count() == 2000


def test_a_writer_killed_mid_loop_leaves_whole_files(memory_root):
    connections.close_all()
    proc = start_writer(memory_root, "bot", "ada", "k", 100_000)
    assert proc.stdout.readline().strip() == "ready"
    log = memory_root / "agents/ada/memory/log/2026-03.md"
    wait_until(lambda: log.exists() and log.read_bytes().count(b"\n- (") >= 40)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    texts = file_facts(memory_root)
    # Each write appends one fact: what is on disk is exactly the first n of them.
    assert [f"k fact number {i}" for i in range(len(texts))] == texts
    assert len(texts) >= 40
    # The killed writer's lock died with its connection: the next write goes through.
    fact_remember(shard=Scope("bot", "ada").shard("ada"), text="After the crash")
    index_sync(scopes=all_scopes(memory_root))
    synced = set(Fact.objects.values_list("text", flat=True))
    report = index_rebuild()
    assert synced == set(Fact.objects.values_list("text", flat=True))
    assert (len(texts) + 1, 0) == (report.facts, report.unreadable)
    history = (memory_root / "agents/ada/memory/history.jsonl").read_text().splitlines()
    assert all(json.loads(line) for line in history)
    wait_for_other_sessions_to_end()


def test_a_hand_edit_between_two_api_writes_survives(memory_root):
    shard = Scope("bot", "ada").shard("ada")
    first = fact_remember(shard=shard, text="First from the API")
    path = memory_root / first.file
    content = path.read_bytes().decode()
    path.write_bytes(
        content.replace("First from the API", "First, corrected by hand").encode()
        + b"A note typed by a person\n- (2026-03-01) Added by hand\n"
    )
    fact_remember(shard=shard, text="Second from the API")
    content = path.read_bytes().decode()
    assert "First, corrected by hand\nA note typed by a person\n- (2026-03-01) Added by hand\n" in (
        content
    )
    assert content.endswith("Second from the API\n")
    assert {"First, corrected by hand", "Added by hand", "Second from the API"} == {
        f.text for f in facts_list(scopes=[shard.scope]).items
    }
