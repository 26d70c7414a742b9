"""Index rows that mirror the memory files. Only `memstore.index` writes them.

Everything here can be rebuilt from MEMORY_ROOT with `manage.py reindex`; deleting a row by hand
is undone by the next sync.
"""

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models.expressions import RawSQL


class MemoryFile(models.Model):
    """One memory file as last synced: where it is, whose it is, and the stat it had."""

    path = models.CharField(max_length=400, unique=True)  # relative to MEMORY_ROOT
    scope_key = models.CharField(max_length=80, db_index=True)  # "kind:name"
    shard_bot = models.CharField(max_length=63)
    tier_file = models.CharField(max_length=8)  # profile | log
    month = models.CharField(max_length=7, blank=True)
    mtime_ns = models.BigIntegerField()
    size = models.BigIntegerField()
    inode = models.BigIntegerField()
    # Content digest as last indexed. `recheck`: the file was indexed so soon after it was
    # written that a later same-size edit could keep the same mtime (timestamps can be coarse),
    # so the next sync compares the digest instead of trusting the stat alone.
    digest = models.CharField(max_length=32, blank=True, default="")
    recheck = models.BooleanField(default=False)
    error = models.TextField(blank=True)  # why the file could not be read, if it could not
    fact_count = models.IntegerField(default=0)
    synced_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.path


class Fact(models.Model):
    """One fact line of one file, with what ranking and search need precomputed."""

    file = models.ForeignKey(MemoryFile, on_delete=models.CASCADE, related_name="facts")
    fact_id = models.CharField(max_length=16)
    day = models.DateField()
    text = models.TextField()  # including a [note]/[episode] tag; a hand-written line whole
    position = models.IntegerField(default=0)  # line number in its file: later lines win ties
    line = models.TextField()  # the canonical line, metadata included
    meta = models.JSONField(default=dict)
    tier = models.CharField(max_length=8)
    weight = models.FloatField()
    rank = models.FloatField()
    visibility = models.CharField(max_length=10, default="context")
    scope_key = models.CharField(max_length=80)
    shard_bot = models.CharField(max_length=63)
    search = models.GeneratedField(
        expression=RawSQL("to_tsvector('english'::regconfig, text)", []),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    class Meta:
        indexes = [
            models.Index(fields=["scope_key", "tier", "-rank"]),
            models.Index(fields=["fact_id"]),
            GinIndex(fields=["search"]),
            # console: newest-first keyset paging through one scope
            models.Index(fields=["scope_key", "-day", "-id"], name="fact_scope_day_id"),
            # recall: the few facts with an `until` day, to leave expired ones out of "N more"
            models.Index(
                fields=["scope_key"], name="fact_until", condition=models.Q(meta__has_key="until")
            ),
            # ... and those marked by feedback (wrong, do-not-use: expired at once)
            models.Index(
                fields=["scope_key"], name="fact_mark", condition=models.Q(meta__has_key="mark")
            ),
            # prompt: each file's best rows in rank order, read without sorting the scope
            models.Index(fields=["file", "-rank", "-day", "-position"], name="fact_file_rank"),
        ]

    def __str__(self) -> str:
        return self.line


class ScopeCount(models.Model):
    """How many facts of a scope, merged across shards (one per identity: the newest copy),
    have each tier part and visibility: what a prompt block says is left on disk. Kept by
    triggers on the fact rows (migration 0024), so every write keeps it true in its own
    transaction; a rebuild fills it again in one pass (`memstore_scope_counts_fill()`)."""

    scope_key = models.CharField(max_length=80)
    profile = models.BooleanField()
    visibility = models.CharField(max_length=10)
    n = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["scope_key", "profile", "visibility"], name="unique_scope_count"
            )
        ]

    def __str__(self) -> str:
        part = "profile" if self.profile else "recent"
        return f"{self.scope_key} {part} {self.visibility}: {self.n}"
