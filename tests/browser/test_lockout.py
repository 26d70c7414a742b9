"""Log-in lock-out as a person meets it, at desktop and phone widths: five wrong log-ins under a
name nobody has lock that name at this address only; a colleague behind the same address still
gets in; the locked page says what happened and what to do, and fits the screen."""

import re

import pytest
from django.conf import settings

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"width": 390, "height": 844}


def log_in(page, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


@pytest.mark.parametrize("width", [1280, 390])
def test_wrong_names_lock_only_that_name_and_the_page_says_so(
    chromium, live_server, django_user_model, width
):
    django_user_model.objects.create_user("sam", password="pw-sam-1234")
    viewport = PHONE if width == 390 else {"width": width, "height": 900}
    context = chromium.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(10_000)
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))

    account_at_address = settings.LOGIN_FAILURE_LIMITS[0]
    for n in range(account_at_address):
        log_in(page, live_server.url, "nobody-here", f"guess-{n}")
    page.get_by_text("Too many failed log-ins").wait_for()
    assert "locked for 15 minutes" in page.content()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # The same browser, the same address: sam is not locked out by someone else's guesses.
    log_in(page, live_server.url, "sam", "pw-sam-1234")
    page.wait_for_url(re.compile(rf"^{re.escape(live_server.url)}/$"))
    assert "Too many failed log-ins" not in page.content()
    context.close()
    assert problems == []
