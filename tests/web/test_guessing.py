"""A console that resists guessing: repeated failed log-ins lock the account and the address
(django-axes), the login page says so, staff unlock with a command; HTTPS=1 passes Django's
deployment checks."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

REPO = Path(__file__).resolve().parents[2]
LIMIT = settings.AXES_FAILURE_LIMIT


def log_in(client, username: str, password: str, address: str = "10.0.0.1"):
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=address)


def test_the_account_is_locked_after_repeated_failures_even_for_the_right_password(client, people):
    answers = [log_in(client, "ann", f"guess-{n}").status_code for n in range(LIMIT)]
    assert answers == [200] * (LIMIT - 1) + [429]
    locked = log_in(client, "ann", "pw-ann-1234")
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "Too many failed log-ins for this account or from this address" in page
    assert "locked for 15 minutes" in page and "ask a staff member to unlock it" in page
    assert "_auth_user_id" not in client.session
    # From another address too: the account is locked, not just the address.
    assert log_in(client, "ann", "pw-ann-1234", address="10.9.9.9").status_code == 429
    # Someone else, elsewhere, still gets in.
    assert log_in(client, "sam", "pw-sam-1234", address="10.9.9.9").status_code == 302


def test_one_address_guessing_many_accounts_is_locked(client, people):
    for n in range(LIMIT):
        log_in(client, f"nobody-{n}", "guess")
    assert log_in(client, "sam", "pw-sam-1234").status_code == 429
    assert log_in(client, "sam", "pw-sam-1234", address="10.0.0.2").status_code == 302


def test_a_successful_log_in_clears_the_count(client, people):
    for n in range(LIMIT - 1):
        log_in(client, "ann", f"guess-{n}")
    assert log_in(client, "ann", "pw-ann-1234").status_code == 302
    client.post("/logout/")
    answers = [log_in(client, "ann", f"again-{n}").status_code for n in range(LIMIT - 1)]
    assert answers == [200] * (LIMIT - 1)


@pytest.mark.parametrize(
    ("command", "args"),
    [("axes_reset_username", ["ann"]), ("axes_reset_ip", ["10.0.0.1"]), ("axes_reset", [])],
)
def test_staff_unlock_with_a_command(client, people, command, args):
    for n in range(LIMIT):
        log_in(client, "ann", f"guess-{n}")
    assert log_in(client, "ann", "pw-ann-1234").status_code == 429
    call_command(command, *args, stdout=open(os.devnull, "w"))  # noqa: SIM115
    assert log_in(client, "ann", "pw-ann-1234").status_code == 302


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env={**os.environ, "SECRET_KEY": secrets.token_urlsafe(50), "DEBUG": "0", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_https_passes_the_deployment_checks():
    checked = _manage("check", "--deploy", "--fail-level", "WARNING", HTTPS="1")
    assert (
        checked.returncode,
        checked.stdout,
    ) == (0, "System check identified no issues (0 silenced).\n"), checked.stderr


def test_without_https_the_deployment_checks_name_what_is_missing():
    checked = _manage("check", "--deploy", "--fail-level", "WARNING", HTTPS="0")
    assert checked.returncode != 0
    for warning in ("W004", "W008", "W012", "W016"):
        assert f"security.{warning}" in checked.stderr


def test_https_settings():
    shown = _manage(
        "shell",
        "--no-imports",
        "-c",
        "from django.conf import settings as s; print(s.SESSION_COOKIE_SECURE, "
        "s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS, s.SECURE_PROXY_SSL_HEADER)",
        HTTPS="1",
    )
    assert shown.stdout == "True True 31536000 ('HTTP_X_FORWARDED_PROTO', 'https')\n", shown.stderr
