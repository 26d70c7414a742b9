"""Hand edits are never lost (SPEC §4): product writes through the services in two processes
while a third process, a person with two kinds of editor, edits the same file thousands of
times. Every hand edit must survive; the figures are printed."""

import os
import re
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import pytest
from django.db import connections

from memstore.facts.paths import Scope
from memstore.store.services import fact_remember
from tests.helpers import REPO, database_url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

HAND_EDITS = int(os.environ.get("RACE_HAND_EDITS", 2000))
WRITES_PER_WRITER = int(os.environ.get("RACE_WRITES", 100))


def start(memory_root: Path, *args: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memoryconsole.settings",
        "DATABASE_URL": database_url(),
        "MEMORY_ROOT": str(memory_root),
        "PYTHONPATH": str(REPO),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.memstore.race_processes", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    return proc


def finish(proc: subprocess.Popen) -> list[int]:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return [int(word) for word in out.split()]


def test_no_hand_edit_is_lost_while_the_product_writes(memory_root, tmp_path):
    first = fact_remember(shard=Scope("bot", "ada").shard("ada"), text="Seed", day=date(2026, 3, 1))
    path = memory_root / first.file
    stop = tmp_path / "stop"
    connections.close_all()  # the children open their own connections
    started = time.monotonic()
    procs = [start(memory_root, "editor", str(path), str(HAND_EDITS), str(stop))]
    try:
        procs += [start(memory_root, "writer", "ada", p, str(WRITES_PER_WRITER)) for p in "xy"]
        gave_up = sum(finish(w)[1] for w in procs[1:])
        stop.touch()
        in_place, renamed, lost = finish(procs[0])
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
    elapsed = time.monotonic() - started

    text = path.read_text(encoding="utf-8")
    last = re.findall(r"^- \(2026-03-02\) hand edit (\d+) ", text, re.M)
    saved = set(re.findall(r"^- \(2026-03-01\) ([xy] fact \d+)$", text, re.M))
    overwritten_by_editor = 2 * WRITES_PER_WRITER - len(saved)
    print(
        f"\nhand edits: {in_place + renamed} ({in_place} in place, {renamed} renamed), "
        f"lost: {lost}; product writes: {2 * WRITES_PER_WRITER}, given up and retried: "
        f"{gave_up}, later overwritten by the editor's own stale saves: "
        f"{overwritten_by_editor}; {elapsed:.1f} s"
    )
    assert in_place >= HAND_EDITS // 2 and renamed >= HAND_EDITS // 2
    assert (0, [str(in_place + renamed - 1)]) == (lost, last)
    # Nothing of ours is left behind in the folder.
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []
