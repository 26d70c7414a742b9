"""Which memories shaped a reply: the prompt sections and recall answers served to a bot in a
room (kept briefly, fact ids only), and per reported exchange what was retrieved, injected and
cited. Three separate records, never merged into one "influenced".

None of these rows holds a fact's text, only its scope and identity; `reindex` leaves them
alone. `memstore.learning.sources` writes and prunes them; an erase removes a fact from them.
"""

from django.contrib.postgres.fields import ArrayField
from django.db import models


class ServedPrompt(models.Model):
    """A prompt section served to a bot in a room: its digest and the facts it held, as
    "scope_key fact_id" strings. One row per distinct section (a re-serve moves `served_at`)."""

    bot = models.CharField(max_length=63)
    room_id = models.CharField(max_length=64)
    digest = models.CharField(max_length=16)
    facts = ArrayField(models.CharField(max_length=100), default=list)
    served_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bot", "room_id", "digest"], name="unique_served")
        ]
        indexes = [
            models.Index(fields=["bot", "room_id", "-served_at"]),
            models.Index(fields=["served_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.bot} in {self.room_id}: {self.digest}"


class ServedRecall(models.Model):
    """A recall answer returned to a bot in a room: the facts it held ("scope_key fact_id")."""

    bot = models.CharField(max_length=63)
    room_id = models.CharField(max_length=64)
    facts = ArrayField(models.CharField(max_length=100), default=list)
    at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["bot", "room_id", "-at"]), models.Index(fields=["at"])]

    def __str__(self) -> str:
        return f"{self.bot} in {self.room_id} at {self.at}"


class ExchangeSource(models.Model):
    """One fact behind one reported exchange, in one role: `retrieved` (recall returned it just
    before), `injected` (it was in the prompt section the bot used) or `cited` (the bot said so
    in `recalled`). `scope_key` is empty for a cited fact not found in memory."""

    RETRIEVED, INJECTED, CITED = "retrieved", "injected", "cited"
    ROLES = (RETRIEVED, INJECTED, CITED)

    exchange = models.ForeignKey("memstore.Exchange", models.CASCADE, related_name="sources")
    role = models.CharField(max_length=9, choices=[(r, r) for r in ROLES])
    scope_key = models.CharField(max_length=80, blank=True)
    fact_id = models.CharField(max_length=16)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["exchange", "role", "scope_key", "fact_id"], name="unique_source"
            )
        ]
        indexes = [models.Index(fields=["fact_id"])]

    def __str__(self) -> str:
        return f"{self.role} {self.scope_key} {self.fact_id}"
