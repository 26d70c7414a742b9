"""`/metrics` under gunicorn as deployed (two worker processes): whichever worker answers the
scrape, the counts are the whole server's, not that worker's share."""

import threading
import urllib.request

import pytest

from tests.deploy.processes import app_server, free_port, wait_until_up
from tests.helpers import database_url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

TOKEN = "metrics-token-for-the-workers-test"


def health_calls(base: str, count: int) -> None:
    for _ in range(count):
        with urllib.request.urlopen(f"{base}/api/v1/health", timeout=10) as answer:
            assert answer.status == 200


def scrape(base: str) -> str:
    request = urllib.request.Request(
        f"{base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.read().decode()


def health_count(text: str) -> float:
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("memory_console_requests_total{") and 'view="health"' in line
    )


def test_every_worker_counts_in_every_scrape(tmp_path, memory_root):
    port = free_port()
    env = {
        "DATABASE_URL": database_url(),
        "MEMORY_ROOT": str(memory_root),
        "VAR_DIR": str(tmp_path / "var"),
        "METRICS_TOKEN": TOKEN,
        "EMBEDDINGS": "none",
    }
    server = app_server("web", port, {**env}, tmp_path)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(server, base)
        before = health_count(scrape(base))
        # Ten clients at once, so both workers take some of the 200 requests.
        clients = [threading.Thread(target=health_calls, args=(base, 20)) for _ in range(10)]
        for client in clients:
            client.start()
        for client in clients:
            client.join()
        folder = tmp_path / "var" / "metrics"
        writers = {path.stem.split("_")[-1] for path in folder.glob("*/counter_*.db")}
        workers = writers - {str(server.popen.pid)}  # the master's labelless counters are zero
        assert len(workers) == 2, f"both workers should have served requests: {writers}"
        # Several scrapes, answered by either worker: each sees all 200 (and its own scrapes).
        for _ in range(6):
            assert health_count(scrape(base)) - before == 200
    finally:
        server.stop()
