"""What the database keeps of lessons said again: each save of a lesson (a `type=learning`
fact in a bot's own memory) that met the fact already stored and so wrote nothing.

A verbatim repeat collapses into the one fact it repeats (the same identity), so this row is
what still counts it (`memstore.prompt.lessons`). Not rebuilt from the files: it records saves,
not lines. It quotes the fact, so an erase of the fact deletes it (`memstore.privacy`).
"""

from django.db import models


class LessonRepeat(models.Model):
    """One save of a lesson the bot's own memory already held: which fact, by which door."""

    bot = models.CharField(max_length=63)
    scope_key = models.CharField(max_length=80)  # "bot:<slug>": the bot's own memory
    fact_id = models.CharField(max_length=16)
    text = models.TextField()  # the lesson as it was saved again
    via = models.CharField(max_length=16)  # the door: api, mcp, console, learner, ...
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["bot", "-at"]), models.Index(fields=["fact_id"])]

    def __str__(self) -> str:
        return f"{self.bot} again: {self.text[:40]}"
