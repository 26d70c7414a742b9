"""What a person decided about a proposal (the learner's report-mode decisions now, synthesis'
proposals later): accepted, with the text written, or rejected; who and when. A proposal with a
decision leaves the review inbox."""

from django.db import models


class ProposalReview(models.Model):
    """One decision about one proposal of one source ("learner": a LearningEvent id)."""

    source = models.CharField(max_length=16)
    ref = models.CharField(max_length=64)
    bot = models.CharField(max_length=63)
    decision = models.CharField(max_length=8)  # accepted | rejected
    text = models.TextField(blank=True)  # what was written when accepted (maybe edited)
    by = models.CharField(max_length=150)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "ref"], name="unique_proposal_review")
        ]

    def __str__(self) -> str:
        return f"{self.source}:{self.ref} {self.decision}"
