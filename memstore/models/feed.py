"""The change feed and its webhooks: what the database keeps of them.

`ChangeEvent` rows are the shards' `history.jsonl` lines, numbered once in the order they were
first read (`memstore.index.events`); `HistoryRead` says how far each history file was read.
Neither is rebuilt by `reindex`: the numbers are the feed's cursor, so they must outlive a
rebuild of the fact index. `WebhookEndpoint` is a staff-registered receiver of the same events
for one bot or one project, `WebhookDelivery` one event sent (or being sent) to one endpoint:
the console's delivery log. A delivery keeps no body: it is built from its event when sent, so
an erase that redacts the event redacts every later (re)delivery too.
"""

from django.db import models


class ChangeEvent(models.Model):
    """One history line of one shard, numbered in the feed (`id` is the cursor)."""

    id = models.BigAutoField(primary_key=True)
    scope_key = models.CharField(max_length=80)
    shard_bot = models.CharField(max_length=63)
    op = models.CharField(max_length=16)  # as recorded: add, remove, edit, restore
    fact_id = models.CharField(max_length=16)
    old_fact_id = models.CharField(max_length=16, blank=True, default="")
    file = models.CharField(max_length=300)
    line = models.TextField(blank=True, default="")
    old_line = models.TextField(blank=True, default="")
    by = models.CharField(max_length=200, blank=True, default="")
    via = models.CharField(max_length=40, blank=True, default="")
    at = models.CharField(max_length=40, blank=True, default="")

    class Meta:
        indexes = [models.Index(fields=["scope_key", "id"], name="change_event_scope")]

    def __str__(self) -> str:
        return f"#{self.id} {self.op} {self.fact_id} in {self.scope_key}"


class HistoryRead(models.Model):
    """How far one shard's history file was read into the feed: its inode, bytes and lines
    (an erase rewrites the file line for line, so the line count still says where to go on)."""

    path = models.CharField(max_length=300, unique=True)
    inode = models.BigIntegerField(default=0)
    size = models.BigIntegerField(default=0)
    lines = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.path}: {self.lines} lines"


class WebhookEndpoint(models.Model):
    """A URL that receives the change feed of one bot or one project, signed with `secret`.
    `dispatched`: the last feed event it was considered for."""

    owner_kind = models.CharField(max_length=10)  # bot | project
    owner = models.CharField(max_length=63)
    url = models.CharField(max_length=500)
    secret = models.CharField(max_length=80)
    active = models.BooleanField(default=True)
    dispatched = models.BigIntegerField(default=0)
    created_by = models.CharField(max_length=150, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.owner_kind}:{self.owner} -> {self.url}"


class WebhookDelivery(models.Model):
    """One event for one endpoint: pending until the receiver answered 2xx, failed once the
    retries ran out. `attempts`, `status` and `error` are the last try's."""

    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE)
    event = models.ForeignKey(ChangeEvent, on_delete=models.CASCADE)
    state = models.CharField(max_length=10, default="pending")  # pending | delivered | failed
    attempts = models.IntegerField(default=0)
    status = models.IntegerField(null=True)
    error = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "event"], name="unique_delivery")
        ]

    def __str__(self) -> str:
        return f"event {self.event_id} -> endpoint {self.endpoint_id}: {self.state}"
