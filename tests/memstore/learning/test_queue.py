"""The durable queue with real procrastinate workers: retries with backoff against the scripted
model over HTTP, a final failure made visible, and a worker killed mid-job."""

import os
import signal
import subprocess
import sys

import pytest
from django.core.management import call_command
from django.db import connection

from memstore.learning import activity_list, exchange_submit, learning_status
from memstore.models import Exchange
from tests.helpers import (
    REPO,
    Reply,
    database_url,
    direct,
    facts_on_disk,
    is_episode,
    ok,
    prompt_of,
    status,
    wait_until,
    worker_run,
)

pytestmark = pytest.mark.django_db(transaction=True)
ALICE = "users/alice/memory/by-agent/ada"


@pytest.fixture(autouse=True)
def empty_queue():
    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE procrastinate_jobs, procrastinate_periodic_defers, procrastinate_workers "
            "CASCADE"
        )


def run_worker() -> None:
    """One in-process worker that stops when no job is ready (retries at wait 0 are ready)."""
    worker_run(["learning"])


def submit(n: int, message: str = "I moved to Lisbon last week"):
    return exchange_submit(
        ctx=direct(), message=message, reply="Noted.", message_id=f"m{n}", reply_id=f"r{n}"
    )


def test_a_failing_model_is_retried_until_it_answers(learning, memory_root):
    learning.push(status(429), Reply(malformed=True), ok("profile: Lives in Lisbon"))
    receipt = submit(1)
    run_worker()
    exchange = Exchange.objects.get(pk=receipt.id)
    assert (exchange.status, exchange.attempts) == ("done", 2)
    assert "Malformed answer" in exchange.error  # the last failure stays on record
    assert len(learning.requests) == 3
    assert [f.text for f in facts_on_disk(memory_root)[f"{ALICE}/profile.md"]] == [
        "Lives in Lisbon"
    ]


def test_a_slow_model_times_out_and_is_retried(learning, memory_root, settings):
    settings.LEARNING_TIMEOUT = 0.5
    learning.push(Reply(text="profile: Too late", delay=1.0), ok("profile: Lives in Lisbon"))
    receipt = submit(1)
    run_worker()
    exchange = Exchange.objects.get(pk=receipt.id)
    assert (exchange.status, exchange.attempts) == ("done", 1)
    assert "Timeout" in exchange.error


def test_a_final_failure_is_recorded_and_shown(learning, memory_root):
    learning.push(status(500), status(500), status(500))
    receipt = submit(1)
    run_worker()
    exchange = Exchange.objects.get(pk=receipt.id)
    assert (exchange.status, exchange.attempts) == ("failed", 3)
    assert exchange.message == "I moved to Lisbon last week"  # kept with the failure
    [event] = activity_list(kinds=["failed"]).items
    assert event.exchange_id == receipt.id
    assert event.detail.startswith("Gave up after 3 attempt(s): InternalServerError")
    assert learning_status().failed == 1
    assert len(learning.requests) == 3


def test_a_refusal_retrying_cannot_fix_fails_at_once(learning):
    learning.push(status(401))
    receipt = submit(1)
    run_worker()
    assert Exchange.objects.get(pk=receipt.id).status == "failed"
    assert len(learning.requests) == 1


@pytest.mark.slow
def test_a_worker_killed_mid_job_is_replaced_without_duplicates(learning, memory_root, tmp_path):
    """The 6th exchange writes its facts, then its episode call hangs; the worker is killed
    there. Another worker finishes the job: every fact once, one episode, one event each."""
    episode_calls = []

    def respond(request):
        if is_episode(request):
            episode_calls.append(1)
            return Reply(block=True) if len(episode_calls) == 1 else ok("Planned the move.")
        step = prompt_of(request).split("[message]\n")[1].split("step ")[1].split("\n")[0]
        return ok(f"log: Finished step {step}\nprofile: Lives in Lisbon")

    learning.responder = respond
    receipts = [submit(n, f"Moving to Lisbon, step {n}") for n in range(1, 7)]

    worker = _worker_process(learning, memory_root, tmp_path / "worker1.log")
    assert learning.blocked.wait(60), (tmp_path / "worker1.log").read_text()
    written = facts_on_disk(memory_root)  # the 6th exchange's facts are already on disk
    assert "Finished step 6" in [f.text for f in written[_log()]]
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(10)
    learning.release.set()
    assert Exchange.objects.get(pk=receipts[-1].id).status == "queued"  # interrupted

    wait_until(lambda: not _fresh_heartbeats(1.0))  # the dead worker's heartbeat goes stale
    call_command("learning_recover", stalled_after=1.0)
    worker = _worker_process(learning, memory_root, tmp_path / "worker2.log")
    assert worker.wait(60) == 0, (tmp_path / "worker2.log").read_text()

    assert set(Exchange.objects.values_list("status", flat=True)) == {"done"}
    facts = facts_on_disk(memory_root)
    assert [f.text for f in facts[f"{ALICE}/profile.md"]] == ["Lives in Lisbon"]
    assert [f.text for f in facts[_log()]] == [
        *(f"Finished step {n}" for n in range(1, 7)),
        "[episode] Planned the move.",
    ]
    history = (memory_root / ALICE / "history.jsonl").read_text().splitlines()
    assert len(history) == 8  # one add per line above, nothing twice
    events = activity_list(exchange_id=receipts[-1].id).items
    assert sorted((e.kind, e.reason, e.text) for e in events) == [
        ("saved", "", "Finished step 6"),
        ("saved", "", "[episode] Planned the move."),
        ("skipped", "known", "Lives in Lisbon"),
    ]
    extraction_calls = [r for r in learning.requests if not is_episode(r)]
    assert len(extraction_calls) == 6  # the killed job's decisions were kept, not asked again
    assert len(episode_calls) == 2


def _fresh_heartbeats(seconds: float) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM procrastinate_workers "
            "WHERE last_heartbeat > now() - make_interval(secs => %s)",
            [seconds],
        )
        return cursor.fetchone()[0]


def _log() -> str:
    from django.utils import timezone

    return f"{ALICE}/log/{timezone.localdate():%Y-%m}.md"


def _worker_process(fake, memory_root, log_path) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "MEMORY_ROOT": str(memory_root),
        "LEARNING_BASE_URL": fake.url,
        "LEARNING_MODEL": "scripted",
        "LEARNING_MODE": "write",
        "LEARNING_RETRY_ATTEMPTS": "3",
        "LEARNING_RETRY_WAIT": "0",
        "LEARNING_TIMEOUT": "30",
    }
    return subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "procrastinate",
            "--skip-checks",
            "worker",
            "--one-shot",
            "--queues",
            "learning",
        ],  # fmt: skip
        cwd=REPO,
        env=env,
        stdout=log_path.open("w"),
        stderr=subprocess.STDOUT,
    )
