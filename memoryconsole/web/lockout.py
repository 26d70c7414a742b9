"""Log-in lock-out: which failures lock whom, and the client's address behind a proxy.

django-axes records every failed console log-in; this module decides what those records lock.
Three counts, each with its own limit (settings `LOGIN_FAILURE_LIMITS`):

- the account and the address together (the person who forgot their password, or a guesser at
  one address): the smallest limit, `AXES_FAILURE_LIMIT`;
- the account from anywhere (guessing spread over many addresses): a larger limit;
- the address for any account (password spraying): a generous limit, so one address trying
  many names is slowed, but a few wrong names never lock out everyone behind a shared address
  (an office, a VPN, a proxy).

A successful log-in clears the account's counts, never the address's: a sprayer who guesses
one password right must not reset the count that slows it down elsewhere.

It does not decide what a locked-out log-in shows (`templates/web/locked_out.html`) or how staff
unlock (axes' `axes_reset_*` commands).
"""

import ipaddress
from collections.abc import Sequence

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum


def failure_limits() -> tuple[int, int, int]:
    """(account and address, account, address): the failures each count allows, in the order of
    settings.AXES_LOCKOUT_PARAMETERS."""
    return tuple(settings.LOGIN_FAILURE_LIMITS)


class AccountFirstHandler(AxesDatabaseHandler):
    """axes' database handler with a limit per count instead of one limit for all of them."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        """The failures of the count nearest its limit, in units of AXES_FAILURE_LIMIT.

        axes locks when this reaches AXES_FAILURE_LIMIT; scaling each count by its own limit
        makes that happen exactly when any one count reaches its own.
        """
        unit = settings.AXES_FAILURE_LIMIT
        nearest = 0
        for attempts, limit in zip(
            self.get_user_attempts(request, credentials), failure_limits(), strict=True
        ):
            failures = attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            nearest = max(nearest, failures * unit // limit)
        return nearest

    def reset_user_attempts(self, request, credentials: dict | None = None) -> int:
        """A successful log-in clears the account's failures (at every address), not the address's."""
        username = get_client_username(request, credentials)
        if username is None:
            return 0
        deleted, _ = AccessAttempt.objects.filter(username=username).delete()
        return deleted


def _networks(entries: Sequence[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(entry, strict=False) for entry in entries]


def _is_trusted(address: str, trusted: list) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in trusted)


def client_address(
    remote_addr: str | None, forwarded_for: str, trusted_proxies: Sequence[str] | None
) -> str | None:
    """The client's address: REMOTE_ADDR, unless it is a trusted proxy.

    Behind trusted proxies, X-Forwarded-For is read from the right (each proxy appends the
    address it saw), skipping trusted proxies; the first other address is the client. Entries
    left of it are the client's own claims and are never believed. `None` means "whatever
    connects is our one proxy" (HTTPS=1 without TRUSTED_PROXIES): the last entry is the client.
    """
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    if trusted_proxies is None:
        return hops[-1] if hops else remote_addr
    trusted = _networks(trusted_proxies)
    if not remote_addr or not _is_trusted(remote_addr, trusted):
        return remote_addr
    for hop in reversed(hops):
        if not _is_trusted(hop, trusted):
            return hop
    return hops[0] if hops else remote_addr


def request_client_address(request) -> str | None:
    """axes' AXES_CLIENT_IP_CALLABLE: the client's address under settings.TRUSTED_PROXIES."""
    return client_address(
        request.META.get("REMOTE_ADDR"),
        request.META.get("HTTP_X_FORWARDED_FOR", ""),
        settings.TRUSTED_PROXIES,
    )
