"""The OAuth consent page in a real browser, at desktop and phone widths: an MCP client sends a
person there, they log in, see which client asks and where it goes back to, pick the bot and
what it may do, press Allow, and the browser lands on the client's redirect URI with a code —
which the page's CSP lets the form lead to. Nothing sticks out of a phone's screen."""

import base64
import hashlib
import re
import secrets
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import pytest

from memstore.models import OAuthGrant
from memstore.registry.bots import bot_create
from memstore.registry.people import person_add, person_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
CALLBACK = "http://127.0.0.1:8765/callback"


@pytest.fixture
def ann(django_user_model, settings, memory_root):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("ann", password="pw-ann-1234")
    for slug, name in (("ava", "Ava"), ("ben", "Ben")):
        bot_create(slug=slug, display_name=name)
        person_link(person=person_add(name="ann", username="ann", exist_ok=True).name, bot=slug)


def _authorize_url(base: str) -> str:
    client = httpx2.post(
        base + "/oauth/register",
        json={"client_name": "Claude Desktop", "redirect_uris": [CALLBACK]},
        timeout=60,  # the live server's first request imports the URLconf: slow on a busy box
    ).json()
    digest = hashlib.sha256(secrets.token_urlsafe(48).encode()).digest()
    params = {
        "response_type": "code",
        "client_id": client["client_id"],
        "redirect_uri": CALLBACK,
        "state": "s-42",
        "code_challenge": base64.urlsafe_b64encode(digest).decode().rstrip("="),
        "code_challenge_method": "S256",
    }
    return f"{base}/oauth/authorize?{urlencode(params)}"


@pytest.mark.parametrize("width", [1280, 390])
def test_consent_page_allow_lands_on_the_client_with_a_code(chromium, live_server, ann, width):
    context = chromium.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.set_default_timeout(10_000)
    landed: list[str] = []
    # The client's loopback listener: answer the redirect as a desktop client would.
    page.route(
        "http://127.0.0.1:8765/**",
        lambda route: (landed.append(route.request.url), route.fulfill(body="Signed in."))[1],
    )

    page.goto(_authorize_url(live_server.url))
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill("pw-ann-1234")
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("heading", name="Connect Claude Desktop to your memory?").wait_for()
    assert "sent back to 127.0.0.1:8765" in page.locator(".consent").inner_text()
    assert page.get_by_label("Bot", exact=True).input_value() == ""  # two bots: the person chooses
    # Any room is for staff only; ann may connect "as me" alone.
    assert page.get_by_label("Any room", exact=False).count() == 0
    assert page.get_by_label(re.compile("As me \\(ann\\)")).is_checked()
    write = page.get_by_label(re.compile("Save, edit and forget facts"))
    assert write.is_checked()
    write.uncheck()
    no_overflow = "document.documentElement.scrollWidth <= window.innerWidth"
    assert page.evaluate(no_overflow), "the consent page is wider than the screen"

    page.get_by_role("button", name="Allow").click()  # no bot chosen yet: the browser asks
    assert landed == []
    page.get_by_label("Bot", exact=True).select_option("ben")
    page.get_by_role("button", name="Allow").click()
    page.wait_for_url(re.compile(r"^http://127\.0\.0\.1:8765/callback\?"))
    query = parse_qs(urlsplit(landed[0]).query)
    assert query["state"] == ["s-42"]
    assert len(query["code"][0]) > 30
    grant = OAuthGrant.objects.get()
    assert (grant.bot.slug, grant.scopes, grant.person) == ("ben", ["memory:read"], "ann")
    assert problems == []
    context.close()
