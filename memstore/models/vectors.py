"""The embedding cache: one vector per (model, fact identity), kept across index rebuilds.

Rows are keyed by the fact's identity (a hash of its text), not by an index row, so dropping and
rebuilding the index, moving a fact between files or saving the same text in another scope
never recomputes a vector. `reindex` does not touch this table.

The `vector` column is pgvector's `vector` type when the extension is available and `bytea`
(little-endian float32) otherwise; the migration decides, `memstore.recall.vectors` reads which.
The ORM never reads or writes that column: raw SQL does, in `memstore.recall.vectors`.
"""

from django.db import models


class Embedding(models.Model):
    """One fact text's vector under one embedding model."""

    model = models.CharField(max_length=80)  # the embedder's stable name
    fact_id = models.CharField(max_length=16)  # the text identity (markdown.fact_identity)
    dim = models.IntegerField()
    vector = models.BinaryField()  # pgvector `vector` in the database when available

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["model", "fact_id"], name="unique_embedding")
        ]

    def __str__(self) -> str:
        return f"{self.model}:{self.fact_id}"
