"""Index rows of the links between facts: one row per `rel=<kind>:<id>` entry of a fact line.

Written only by `memstore.index` (sync and rebuild), next to the fact rows they come from, and
dropped with their file's row: like every index row, rebuilt from the files at any time. The
target is a fact identity; it may live in another file or scope, or no longer exist.
"""

from django.db import models

from memstore.models.index import MemoryFile


class Link(models.Model):
    """`source` (a fact of `file`) --kind--> `target` (a fact identity)."""

    file = models.ForeignKey(MemoryFile, on_delete=models.CASCADE, related_name="links")
    source = models.CharField(max_length=16)
    kind = models.CharField(max_length=16)
    target = models.CharField(max_length=16)
    scope_key = models.CharField(max_length=80)
    shard_bot = models.CharField(max_length=63)

    class Meta:
        indexes = [
            models.Index(fields=["scope_key", "source"], name="link_scope_source"),
            models.Index(fields=["target"], name="link_target"),
            models.Index(fields=["file", "source"], name="link_file_source"),
        ]

    def __str__(self) -> str:
        return f"{self.source} {self.kind} {self.target}"
