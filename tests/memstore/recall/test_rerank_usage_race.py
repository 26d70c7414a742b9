"""A remote reranker's daily cost is charged by every app worker at once: three processes
charging the same (new) day lose no call and no token, whoever creates the day's row."""

import os
import subprocess
import sys

import pytest
from django.db import connections

from memstore.models import RerankUsage
from tests.helpers import REPO, database_url

pytestmark = pytest.mark.django_db(transaction=True)

CHILD = """
import sys, django
django.setup()
from memstore.recall.rerank import _charge
print("ready", flush=True)
sys.stdin.readline()  # all start together
for _ in range(int(sys.argv[1])):
    _charge(7)
print("done", flush=True)
"""


def test_concurrent_charges_lose_nothing(memory_root):
    connections.close_all()  # the children open their own connections
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memoryconsole.settings",
        "DATABASE_URL": database_url(),
        "MEMORY_ROOT": str(memory_root),
        "PYTHONPATH": str(REPO),
    }
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, "30"],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for proc in procs:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0 and out.strip() == "done", err
    usage = RerankUsage.objects.get()
    assert (usage.calls, usage.tokens) == (90, 630)
