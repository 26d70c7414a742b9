"""The webhooks page in a real browser at desktop and phone widths: staff register an endpoint
with a long URL, see its secret once and the delivery log; nothing sticks out of a phone's
screen; no script or CSP errors."""

import pytest

from memstore.models import ChangeEvent, WebhookDelivery, WebhookEndpoint
from memstore.registry.bots import bot_create, project_join
from tests.browser.conftest import signed_in_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
LONG_URL = "https://hooks.example.org/memory-console/deliveries/" + "x" * 80


@pytest.fixture
def setup(memory_root, django_user_model, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_superuser("boss", password="pw-boss-1234")
    bot_create(slug="scout")
    project_join(bot="scout", project="apollo")


@pytest.mark.parametrize("width", [1280, 390])
def test_register_an_endpoint_and_read_the_log(chromium, live_server, setup, width):
    from playwright.sync_api import expect

    context, page, problems = signed_in_page(
        chromium, live_server.url, width, "/webhooks/", "boss", "pw-boss-1234"
    )
    page.get_by_label("For a").select_option("project")
    page.get_by_label("Bot or project").fill("apollo")
    page.get_by_label("URL").fill(LONG_URL)
    page.get_by_role("button", name="Register").click()
    secret = WebhookEndpoint.objects.get().secret
    expect(page.get_by_text(secret)).to_be_visible()
    endpoint = WebhookEndpoint.objects.get()
    event = ChangeEvent.objects.create(
        scope_key="project:apollo", shard_bot="scout", op="add", fact_id="1" * 16, file="f"
    )
    WebhookDelivery.objects.create(
        endpoint=endpoint, event=event, state="pending", attempts=2, status=503, error="HTTP 503"
    )

    page.goto(f"{live_server.url}/webhooks/")
    expect(page.get_by_text(secret)).to_have_count(0)
    expect(page.get_by_text("0 delivered, 1 pending, 0 failed")).to_be_visible()
    expect(page.get_by_text("503 · HTTP 503")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    assert problems == []
    context.close()
