"""A console that resists guessing: repeated failed log-ins lock the account at an address, the
account everywhere and, far later, the address (django-axes), the login page says so, staff unlock with a command; HTTPS=1 passes Django's
deployment checks."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from memoryconsole.web import lockout

REPO = Path(__file__).resolve().parents[2]
ACCOUNT_ADDRESS, ACCOUNT, ADDRESS = settings.LOGIN_FAILURE_LIMITS
LIMIT = settings.AXES_FAILURE_LIMIT


def log_in(client, username: str, password: str, address: str = "10.0.0.1", **headers):
    return client.post(
        "/login/", {"username": username, "password": password}, REMOTE_ADDR=address, **headers
    )


def test_the_limits_are_ordered_and_the_address_one_is_generous():
    assert (ACCOUNT_ADDRESS, ACCOUNT, ADDRESS) == (5, 10, 50)
    assert LIMIT == ACCOUNT_ADDRESS


def test_the_account_is_locked_at_that_address_even_for_the_right_password(client, people):
    answers = [log_in(client, "ann", f"guess-{n}").status_code for n in range(ACCOUNT_ADDRESS)]
    assert answers == [200] * (ACCOUNT_ADDRESS - 1) + [429]
    locked = log_in(client, "ann", "pw-ann-1234")
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "Too many failed log-ins for this account or from this address" in page
    assert "locked for 15 minutes" in page and "ask a staff member to unlock it" in page
    assert "_auth_user_id" not in client.session
    # Someone else at the same address still gets in: the lock is the account's.
    assert log_in(client, "sam", "pw-sam-1234").status_code == 302


def test_guessing_one_account_from_many_addresses_locks_it_everywhere(client, people):
    for n in range(ACCOUNT):
        log_in(client, "ann", f"guess-{n}", address=f"10.1.{n}.1")
    assert log_in(client, "ann", "pw-ann-1234", address="10.9.9.9").status_code == 429
    assert log_in(client, "sam", "pw-sam-1234", address="10.9.9.9").status_code == 302


def test_wrong_names_do_not_lock_out_everyone_behind_the_address(client, people):
    # The case: five wrong log-ins as an unknown name used to lock the whole office out.
    for n in range(ACCOUNT_ADDRESS):
        log_in(client, "nobody", f"guess-{n}")
    assert log_in(client, "nobody", "guess").status_code == 429
    assert log_in(client, "sam", "pw-sam-1234").status_code == 302
    client.post("/logout/")
    assert log_in(client, "ann", "pw-ann-1234").status_code == 302


def test_an_address_spraying_many_accounts_is_still_slowed(client, people):
    answers = [log_in(client, f"name-{n}", "Spring2026!").status_code for n in range(ADDRESS)]
    assert answers == [200] * (ADDRESS - 1) + [429]
    assert log_in(client, "sam", "pw-sam-1234").status_code == 429
    assert log_in(client, "sam", "pw-sam-1234", address="10.0.0.2").status_code == 302


def test_a_lucky_guess_does_not_clear_the_address_count(client, people):
    for n in range(ADDRESS - 1):
        log_in(client, f"name-{n}", "guess")
    assert log_in(client, "ann", "pw-ann-1234").status_code == 302
    client.post("/logout/")
    assert log_in(client, "sam", "wrong").status_code == 429


def test_a_successful_log_in_clears_the_count(client, people):
    for n in range(LIMIT - 1):
        log_in(client, "ann", f"guess-{n}")
    assert log_in(client, "ann", "pw-ann-1234").status_code == 302
    client.post("/logout/")
    answers = [log_in(client, "ann", f"again-{n}").status_code for n in range(LIMIT - 1)]
    assert answers == [200] * (LIMIT - 1)


def test_behind_trusted_proxies_the_client_address_is_counted(client, people, settings):
    settings.TRUSTED_PROXIES = ["192.168.0.0/24"]
    # The client claims to be 10.7.7.7; the first proxy saw 203.0.113.9, the second the first.
    forwarded = {"HTTP_X_FORWARDED_FOR": "10.7.7.7, 203.0.113.9, 192.168.0.3"}
    for n in range(ACCOUNT_ADDRESS):
        log_in(client, "ann", f"guess-{n}", address="192.168.0.2", **forwarded)
    assert (
        log_in(client, "ann", "pw-ann-1234", address="192.168.0.2", **forwarded).status_code == 429
    )
    # The same account through the same proxies from another client is not locked.
    other = {"HTTP_X_FORWARDED_FOR": "198.51.100.4, 192.168.0.3"}
    assert log_in(client, "ann", "pw-ann-1234", address="192.168.0.2", **other).status_code == 302


@pytest.mark.parametrize(
    ("remote", "forwarded", "trusted", "client"),
    [
        ("203.0.113.9", "", [], "203.0.113.9"),
        # Not from a trusted proxy: the header is the client's own claim, ignored.
        ("203.0.113.9", "10.0.0.1", ["192.168.0.0/24"], "203.0.113.9"),
        ("192.168.0.2", "10.7.7.7, 203.0.113.9", ["192.168.0.0/24"], "203.0.113.9"),
        ("192.168.0.2", "203.0.113.9, 192.168.0.8", ["192.168.0.0/24"], "203.0.113.9"),
        ("192.168.0.2", "not-an-address, 203.0.113.9", ["192.168.0.0/24"], "203.0.113.9"),
        ("::1", "2001:db8::7", ["::1"], "2001:db8::7"),
        # HTTPS=1 without TRUSTED_PROXIES: the one proxy in front appended the last entry.
        ("10.0.0.5", "1.2.3.4, 203.0.113.9", None, "203.0.113.9"),
        ("10.0.0.5", "", None, "10.0.0.5"),
    ],
)
def test_the_client_address(remote, forwarded, trusted, client):
    assert lockout.client_address(remote, forwarded, trusted) == client


def test_a_bad_trusted_proxy_is_named():
    shown = _manage("check", TRUSTED_PROXIES="10.0.0.5,ten.0.0.6")
    assert shown.returncode != 0
    assert "TRUSTED_PROXIES: 'ten.0.0.6' is not an address or a network" in shown.stderr


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
