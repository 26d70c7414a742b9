"""The OAuth endpoints' rate windows, with a controlled clock: a limit holds within its window,
says how long until the window ends, opens afresh in the next one, counts each address and
endpoint apart, and keeps no row for a window that has ended."""

import pytest

from memstore.models import OAuthRateWindow
from memstore.registry.rate_limits import rate_hit

pytestmark = pytest.mark.django_db

START = 1_800_000_000.0  # a window boundary for a 60-second window (divisible by 60)


def _hits(times: int, *, at: float, address: str = "10.0.0.1", bucket: str = "token") -> list:
    return [
        rate_hit(bucket=bucket, address=address, limit=3, window=60, now=at) for _ in range(times)
    ]


def test_a_limit_holds_for_its_window_and_says_how_long_is_left():
    assert _hits(3, at=START) == [0, 0, 0]
    assert _hits(2, at=START + 45.5) == [15, 15]  # Retry-After: whole seconds, rounded up
    assert _hits(1, at=START + 59.9) == [1]
    assert _hits(3, at=START + 60) == [0, 0, 0]  # the next window starts afresh


def test_addresses_and_endpoints_count_apart():
    assert _hits(4, at=START)[-1] == 60
    assert _hits(1, at=START, address="10.0.0.2") == [0]
    assert _hits(1, at=START, bucket="revoke") == [0]


def test_ended_windows_leave_no_rows():
    _hits(5, at=START, address="10.0.0.3")
    _hits(1, at=START, address="10.0.0.4")
    assert OAuthRateWindow.objects.count() == 2
    _hits(1, at=START + 3600)
    assert list(OAuthRateWindow.objects.values_list("count", flat=True)) == [1]
