"""The share audit in a real browser, at desktop and phone widths: each share readable (who,
what, from where to where) without scrolling sideways."""

import pytest

from memstore.facts.markdown import fact_identity
from memstore.registry.bots import bot_create
from memstore.store.sharing import fact_share
from tests.browser.conftest import signed_in_page
from tests.helpers import day, write_memory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ANN = "users/ann-marie.long-name/memory/by-agent/ava/profile.md"
FACT = "Ann-Marie prefers the quarterly planning offsite to be in Lisbon in early spring"


@pytest.mark.parametrize("width", [1280, 390])
def test_staff_read_the_share_audit_at_any_width(
    chromium, live_server, memory_root, django_user_model, settings, width
):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("boss", password="pw-boss-1234", is_staff=True)
    bot_create(slug="ava")
    write_memory(memory_root, ANN, f"- ({day(9)}) {FACT}")
    fact_share(file=ANN, fact_id=fact_identity(FACT), by="boss")

    context, page, problems = signed_in_page(
        chromium, live_server.url, width, "/audit/", "boss", "pw-boss-1234"
    )

    entry = page.locator("table.audit tbody tr")
    assert entry.count() == 1
    assert FACT in entry.inner_text() and "boss" in entry.inner_text()
    assert ANN in entry.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scroll
    assert problems == []
    context.close()
