"""Replies to calls made with an `Idempotency-Key`, so a retried call returns the first reply
instead of acting twice. Kept for a day; configuration-like, not index: `reindex` leaves it."""

from django.db import models

from memstore.models.registry import Bot


class IdempotentReply(models.Model):
    """The reply given to one bot's call with one idempotency key."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="idempotent_replies")
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)  # SHA-256 of the request it answered
    status = models.PositiveSmallIntegerField()
    body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bot", "key"], name="unique_idempotency_key")
        ]
