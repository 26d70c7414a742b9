"""`/metrics`: Prometheus text for staff or the metrics token, with the request, recall, sync and
learning-queue figures an operator graphs; nobody else may read it."""

import re

import pytest
from django.test import Client


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample in the exposition text (0 when it is absent)."""
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split(" ")[0]))
        if all(found.get(key) == value for key, value in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total


@pytest.fixture
def metrics_token(settings):
    settings.METRICS_TOKEN = "metrics-secret-for-tests"
    return settings.METRICS_TOKEN


def scrape(token: str) -> str:
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return response.content.decode()


def test_nobody_reads_metrics_without_the_token_or_staff(db, metrics_token, django_user_model):
    anonymous = Client().get("/metrics")
    assert anonymous.status_code == 401
    assert "METRICS_TOKEN" in anonymous.content.decode()
    assert anonymous["WWW-Authenticate"].startswith("Bearer")
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401

    person = django_user_model.objects.create_user("sam", password="pw-sam-1234")
    client = Client()
    client.force_login(person)
    assert client.get("/metrics").status_code == 401

    staff = django_user_model.objects.create_user("boss", password="pw-b-1234", is_staff=True)
    client.force_login(staff)
    assert client.get("/metrics").status_code == 200


def test_no_token_configured_means_staff_only(db, settings):
    settings.METRICS_TOKEN = ""
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 401


def test_requests_recalls_and_syncs_are_counted(metrics_token, bot_a):
    before = scrape(metrics_token)
    assert bot_a.post("/facts", {"text": "Prefers window seats on long flights"}).status == 201
    for _ in range(3):
        assert bot_a.get("/recall", query="window seat").status == 200
    assert bot_a.get("/recall", query="").status == 422
    after = scrape(metrics_token)

    def grew(name: str, **labels: str) -> float:
        return sample(after, name, **labels) - sample(before, name, **labels)

    ok_recalls = grew("memory_console_requests_total", view="recall", status="2xx", surface="api")
    assert ok_recalls == 3
    assert grew("memory_console_requests_total", view="recall", status="4xx") == 1
    assert grew("memory_console_request_duration_seconds_count", view="recall") == 4
    # each answered read syncs first (folded into recall's first statement, still counted); the
    # blank query is refused before it reads anything
    assert grew("memory_console_sync_runs_total") >= 3
    assert grew("memory_console_sync_files_changed_total") >= 0


def test_the_server_state_is_read_at_scrape_time(metrics_token, db):
    text = scrape(metrics_token)
    assert sample(text, "memory_console_database_up") == 1
    assert sample(text, "memory_console_memory_volume_writable") == 1
    assert sample(text, "memory_console_memory_volume_free_bytes") > 0
    assert "memory_console_learning_queue_waiting " in text
    assert "memory_console_learning_workers " in text
    # Labels never carry who asked or what: no bot, person or path.
    assert "alice" not in text and "/api/v1/" not in text


def test_oauth_requests_are_their_own_surface_not_the_console(metrics_token, db):
    # An MCP client's sign-in (metadata, registration, tokens) is not a person using the console.
    before = scrape(metrics_token)
    client = Client()
    assert client.get("/.well-known/oauth-authorization-server").status_code == 200
    assert client.post("/oauth/token", {"grant_type": "nonsense"}).status_code == 400
    assert client.get("/").status_code == 302  # the console sends a stranger to log in
    after = scrape(metrics_token)

    def grew(**labels: str) -> float:
        name = "memory_console_requests_total"
        return sample(after, name, **labels) - sample(before, name, **labels)

    assert grew(surface="oauth") == 2
    assert grew(surface="oauth", view="oauth_token", status="4xx") == 1
    assert grew(surface="console") == 1
