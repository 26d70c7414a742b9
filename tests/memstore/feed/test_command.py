"""manage.py webhooks: add (the secret printed once), list, log, disable, and a clear error
for a bad request."""

import pytest
from django.core.management import CommandError, call_command

from memstore.models import WebhookEndpoint
from memstore.registry.bots import bot_create
from tests.helpers import run_command


def test_add_list_log_and_disable(db):
    bot_create(slug="scout")
    out = run_command("webhooks", "add", "bot", "scout", "https://example.org/hook", "--by", "ops")
    endpoint = WebhookEndpoint.objects.get()
    assert f"Endpoint {endpoint.id}: bot scout -> https://example.org/hook" in out
    assert f"Signing secret (shown once): {endpoint.secret}" in out
    listed = run_command("webhooks", "list")
    assert "bot:scout\thttps://example.org/hook\tactive\t0 delivered, 0 pending, 0 failed" in listed
    assert endpoint.secret not in listed
    assert run_command("webhooks", "log") == ""
    assert "disabled" in run_command("webhooks", "disable", str(endpoint.id))
    assert "\tdisabled\t" in run_command("webhooks", "list")


def test_a_bad_request_says_what_is_wrong(db):
    with pytest.raises(CommandError, match="No bot 'ghost' is registered"):
        call_command("webhooks", "add", "bot", "ghost", "https://example.org/hook")
    with pytest.raises(CommandError, match="There is no webhook endpoint 9"):
        call_command("webhooks", "disable", "9")
