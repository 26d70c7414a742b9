"""The workspace's daily token budget for learning: what was spent today, and charging a call.

One row per day. Concurrent workers add with one UPDATE each, so no count is lost; a call that
starts while another is running can overshoot the cap by at most that call.
"""

from datetime import date

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from memstore.models import TokenUsage


def budget_spent(*, day: date | None = None) -> int:
    """Tokens the learner spent on `day` (today by default)."""
    day = day or timezone.localdate()
    return TokenUsage.objects.filter(day=day).values_list("tokens", flat=True).first() or 0


def budget_exhausted(*, daily_tokens: int, spent: int | None = None) -> str | None:
    """A message saying the day's budget is spent, or None while some is left (`spent`:
    today's total if the caller already read it)."""
    spent = budget_spent() if spent is None else spent
    if spent < daily_tokens:
        return None
    return f"Daily token budget exhausted: {spent:,} of {daily_tokens:,} tokens used today."


def budget_charge(*, tokens: int, day: date | None = None) -> None:
    """Add one model call's tokens to the day's total (summarize, upkeep and synthesis share
    the budget)."""
    day = day or timezone.localdate()
    updated = TokenUsage.objects.filter(day=day).update(
        tokens=F("tokens") + tokens, calls=F("calls") + 1
    )
    if updated:
        return
    try:
        with transaction.atomic():
            TokenUsage.objects.create(day=day, tokens=tokens, calls=1)
    except IntegrityError:  # another worker created today's row first
        TokenUsage.objects.filter(day=day).update(tokens=F("tokens") + tokens, calls=F("calls") + 1)
