"""The database lost while an exchange is being queued: procrastinate wraps the driver's error
in its own `ConnectorException`, which must still be the API's 503 with Retry-After (like any
other database outage), not a 500, and nothing half-stored stays behind."""

import psycopg
import pytest
from django.db import connection

from memstore.learning import queue
from memstore.models import Exchange

pytestmark = pytest.mark.django_db(transaction=True)

EXCHANGE = {
    "message": "Can we move the standup to 9:30 from next week?",
    "reply": "Done: standup is at 9:30 from Monday.",
    "message_id": "m-1",
    "reply_id": "m-2",
}


def _terminate_backend(pid: int) -> None:
    # From a connection of its own, as an operator's restart or a crash would end it.
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])


@pytest.fixture(autouse=True)
def learning_on(settings):
    settings.LEARNING_BASE_URL = "http://127.0.0.1:9/v1"  # on; no job runs, so never called
    settings.LEARNING_MODEL = "scripted"
    settings.LEARNING_MODE = "write"


@pytest.fixture
def killed_while_queueing(monkeypatch):
    defer = queue.learn_exchange.defer

    def dies_first(**kwargs):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            _terminate_backend(cursor.fetchone()[0])
        return defer(**kwargs)

    monkeypatch.setattr(queue.learn_exchange, "defer", dies_first)
    yield
    connection.close()  # the test client keeps the broken connection; the next test reconnects


def test_the_database_killed_during_the_enqueue_is_a_503_with_retry_after(
    bot_a, killed_while_queueing
):
    refused = bot_a.post("/exchanges", EXCHANGE)
    assert refused.status == 503, refused.body
    assert refused.body["code"] == "database_unavailable"
    assert "retry in 2 seconds" in refused.body["message"]
    assert refused.headers["Retry-After"] == "2"
    connection.close()
    assert not Exchange.objects.exists()  # the exchange's row went with the transaction


def test_a_queue_error_that_is_not_an_outage_stays_a_500(bot_a, monkeypatch):
    from procrastinate.exceptions import ConnectorException

    def broken(**kwargs):
        raise ConnectorException from psycopg.ProgrammingError("a bug in a statement")

    monkeypatch.setattr(queue.learn_exchange, "defer", broken)
    failed = bot_a.post("/exchanges", EXCHANGE)
    assert (failed.status, failed.body["code"]) == (500, "server_error")
    assert "Retry-After" not in failed.headers
