"""The webhooks page (staff): register an endpoint (its secret shown once), see endpoints and
the delivery log, disable one; refused to people who are not staff."""

import re

import pytest

from memstore.models import ChangeEvent, WebhookDelivery, WebhookEndpoint
from memstore.registry.bots import bot_create, project_join

URL = "/webhooks/"


@pytest.fixture
def bots(db):
    bot_create(slug="ava")
    project_join(bot="ava", project="launch")


def test_staff_register_an_endpoint_and_see_its_secret_once(boss, bots):
    page = boss.post(
        URL,
        {
            "action": "add",
            "owner_kind": "project",
            "owner": "launch",
            "url": "https://hooks.example.org/m",
        },
    )

    assert page.status_code == 200
    html = page.content.decode()
    secret = WebhookEndpoint.objects.get().secret
    assert secret in html and "shown this once" in html
    assert page["Cache-Control"] == "no-store"
    again = boss.get(URL).content.decode()
    assert secret not in again
    assert "project launch" in again and "https://hooks.example.org/m" in again


def test_a_bad_url_says_what_is_wrong_and_registers_nothing(boss, bots):
    page = boss.post(URL, {"action": "add", "owner_kind": "bot", "owner": "ava", "url": "ftp://x"})
    assert "must be http:// or https://" in page.content.decode()
    assert not WebhookEndpoint.objects.exists()


def test_the_delivery_log_and_disabling(boss, bots):
    endpoint = WebhookEndpoint.objects.create(
        owner_kind="bot", owner="ava", url="http://127.0.0.1:9/h", secret="s"
    )
    event = ChangeEvent.objects.create(
        scope_key="bot:ava", shard_bot="ava", op="add", fact_id="0" * 16, file="f"
    )
    WebhookDelivery.objects.create(
        endpoint=endpoint, event=event, state="failed", attempts=9, status=500, error="HTTP 500"
    )

    html = boss.get(URL).content.decode()
    row = re.search(rf"<tr>\s*<th scope=\"row\">{event.id}</th>(.*?)</tr>", html, re.S).group(1)
    assert "failed" in row and ">9<" in row and "500 · HTTP 500" in row
    assert "0 delivered, 0 pending, 1 failed" in html

    done = boss.post(URL, {"action": "disable", "endpoint": endpoint.id}, follow=True)
    assert f"Endpoint {endpoint.id} (http://127.0.0.1:9/h) disabled" in done.content.decode()
    assert not WebhookEndpoint.objects.get().active


def test_people_who_are_not_staff_are_refused(ann, bots):
    assert ann.get(URL).status_code == 403
    post = ann.post(
        URL, {"action": "add", "owner_kind": "bot", "owner": "ava", "url": "http://x.org"}
    )
    assert post.status_code == 403
    assert not WebhookEndpoint.objects.exists()
