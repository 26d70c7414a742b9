"""What upkeep and synthesis keep in the database: how often facts are used, and proposed
changes to a store with their evidence and verdicts.

Not an index of the files: `reindex` leaves these rows alone. Usage is keyed by fact identity
and scope, so it survives a rebuild and a move between files.
"""

from django.db import models


class FactUsage(models.Model):
    """How often one fact was returned by recall and put into a prompt, and when last."""

    scope_key = models.CharField(max_length=80)
    fact_id = models.CharField(max_length=16)
    recalled = models.IntegerField(default=0)
    prompted = models.IntegerField(default=0)
    last_used = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope_key", "fact_id"], name="unique_fact_usage")
        ]

    def __str__(self) -> str:
        return f"{self.scope_key}/{self.fact_id}: {self.recalled} recalls, {self.prompted} prompts"


class Proposal(models.Model):
    """One change upkeep or synthesis proposed for a bot's store, with the evidence it cites.

    `key` is derived from the action and the facts it touches, so a re-run proposes (and
    applies) nothing twice."""

    PROPOSED, APPROVED, REJECTED, APPLIED, FAILED = (
        "proposed",
        "approved",
        "rejected",
        "applied",
        "failed",
    )
    STATUSES = [(s, s) for s in (PROPOSED, APPROVED, REJECTED, APPLIED, FAILED)]

    key = models.CharField(max_length=40, unique=True)
    origin = models.CharField(max_length=16)  # duplicate | contradiction | stale | synthesis
    action = models.CharField(max_length=10)  # merge | rewrite | retire | supersede
    bot = models.CharField(max_length=63)
    scope_key = models.CharField(max_length=80)
    evidence = models.JSONField(default=list)  # [{"id": ..., "text": ...}] as read
    text = models.TextField(blank=True)  # the new fact's text (merge, rewrite, supersede keeps)
    reason = models.TextField(blank=True)
    verdict = models.TextField(blank=True)  # the second opinion's answer
    status = models.CharField(max_length=9, choices=STATUSES, default=PROPOSED)
    result = models.JSONField(default=dict)  # what applying it wrote and archived
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True)

    class Meta:
        indexes = [models.Index(fields=["bot", "status", "-created_at"], name="proposal_inbox")]

    def __str__(self) -> str:
        return f"{self.origin} {self.action} for {self.bot} ({self.status})"


class HealthSnapshot(models.Model):
    """The last finished health report of a bot's store (`key` "bot:<slug>") or of the
    workspace ("workspace"), so a page shows it at once, and whether a new one is on its way.

    `findings` keeps at most a few hundred of each kind (as JSON: kind, why, fact, other,
    proposal); `counts` counts all of them per scope and kind, so a person who may see only
    some scopes gets counts of those. `versions` is what the store's scopes looked like when it
    was made: when they change, the report is out of date."""

    key = models.CharField(max_length=80, unique=True)
    facts = models.IntegerField(default=0)
    counts = models.JSONField(default=dict)  # {scope: {kind: n}}
    findings = models.JSONField(default=list)
    versions = models.JSONField(default=dict)
    finished_at = models.DateTimeField(null=True)  # None: none finished yet
    seconds = models.FloatField(default=0.0)
    requested_at = models.DateTimeField(null=True)  # a new report is queued or running since
    error = models.TextField(blank=True)  # why the last attempt failed, if it did

    def __str__(self) -> str:
        return f"health of {self.key} ({self.facts} facts, {self.finished_at})"
