"""What the learner keeps in the database: the exchanges it was given, what it did with each,
and how many model tokens it spent per day.

These rows are not an index of the files and `reindex` leaves them alone: they are the durable
inbox of the background learner (an exchange is stored before its job is queued, so a restart
loses nothing) and the record a person reads in the console's learning view.
"""

from django.db import models


class Exchange(models.Model):
    """One delivered exchange (a person's message and the bot's reply) reported for learning."""

    QUEUED, DONE, SKIPPED, FAILED = "queued", "done", "skipped", "failed"
    STATUSES = [(s, s) for s in (QUEUED, DONE, SKIPPED, FAILED)]

    bot = models.CharField(max_length=63)
    room_id = models.CharField(max_length=64)
    room_kind = models.CharField(max_length=8)
    person = models.CharField(max_length=64, blank=True)
    projects = models.JSONField(default=list)
    message_id = models.CharField(max_length=64)
    reply_id = models.CharField(max_length=64)
    message = models.TextField(blank=True)  # dropped (left empty) when skipped, except small talk
    reply = models.TextField(blank=True)
    recalled = models.JSONField(default=list)  # fact ids or texts the bot had in front of it
    seq = models.IntegerField(null=True)  # n-th eligible exchange of this bot in this room
    status = models.CharField(max_length=8, choices=STATUSES, default=QUEUED)
    reason = models.CharField(max_length=24, blank=True)  # why skipped or failed
    plan = models.JSONField(null=True)  # the decided actions, kept so a retry redoes no call
    episode = models.TextField(null=True)  # the episode sentence(s), once written by the model
    tokens = models.IntegerField(default=0)
    attempts = models.IntegerField(default=0)
    error = models.TextField(blank=True)  # the last failure, shown while retrying and after
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["bot", "room_id", "message_id", "reply_id"], name="unique_exchange"
            )
        ]
        indexes = [models.Index(fields=["bot", "room_id", "seq"])]

    def __str__(self) -> str:
        return f"{self.bot} in {self.room_id}: {self.message_id} ({self.status})"


class LearningEvent(models.Model):
    """One thing the learner did or decided not to do, for the console's learning view.

    `key` is unique per exchange, so a job that is run again after a crash records nothing twice.
    """

    exchange = models.ForeignKey(Exchange, on_delete=models.CASCADE, related_name="events")
    key = models.CharField(max_length=40)
    at = models.DateTimeField(auto_now_add=True)
    bot = models.CharField(max_length=63)
    room_id = models.CharField(max_length=64)
    room_kind = models.CharField(max_length=8)
    person = models.CharField(max_length=64, blank=True)
    kind = models.CharField(max_length=16)  # saved removed would_save would_remove skipped ...
    reason = models.CharField(max_length=24, blank=True)
    mode = models.CharField(max_length=8)  # report | write
    scope = models.CharField(max_length=80, blank=True)  # "kind:name" written (or would be)
    tier = models.CharField(max_length=8, blank=True)
    fact_id = models.CharField(max_length=16, blank=True)
    text = models.TextField(blank=True)
    detail = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["exchange", "key"], name="unique_learning_event")
        ]
        indexes = [models.Index(fields=["bot", "-at"]), models.Index(fields=["kind", "-at"])]

    def __str__(self) -> str:
        return f"{self.kind} {self.text[:40]}"


class TokenUsage(models.Model):
    """Model tokens the learner spent on one day, for the workspace's daily budget."""

    day = models.DateField(unique=True)
    tokens = models.BigIntegerField(default=0)
    calls = models.IntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.day}: {self.tokens}"
