"""What a remote reranker cost: tokens per day, for recall's daily rerank cap.

Not an index of the files: `reindex` leaves these rows alone. Kept apart from the learner's
`TokenUsage`: the reranker has its own cap, so a busy search day never stops learning.
"""

from django.db import models


class RerankUsage(models.Model):
    """Tokens a remote reranker was charged for on one day, and how many calls."""

    day = models.DateField(unique=True)
    tokens = models.BigIntegerField(default=0)
    calls = models.IntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.day}: {self.tokens}"
