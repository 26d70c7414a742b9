"""The database's record of lessons said again (`memstore.models.LessonRepeat`, written by
`memstore.store.repeats`) as a place that holds a fact's text: a row quotes the lesson it
repeats and names it by identity. An erase deletes the rows (a repeat of an erased lesson
must not count towards a lesson any more), within the reach: the bot whose memory it is.
"""

from django.db import transaction
from django.db.models import Q

from memstore.models import LessonRepeat
from memstore.privacy.place import Erasing
from memstore.privacy.reach import Reach
from memstore.privacy.record_stores import RedactedRows
from memstore.privacy.target import Target


class LessonRepeats(RedactedRows):
    """Lessons saved again once stored: found by identity or by their text, deleted."""

    kind, model, texts = "repeat", LessonRepeat, ("text",)

    def named(self, target: Target) -> Q:
        return Q(fact_id__in=target.ids)

    def owners(self, rows: list[LessonRepeat]) -> list[tuple[str | None, str | None]]:
        return [(row.bot, None) for row in rows]

    def where(self, row: LessonRepeat) -> str:
        return f"lesson repeat {row.pk} ({row.bot}, via {row.via})"

    def holds_in(self, row: LessonRepeat, target: Target) -> bool:
        return row.fact_id in target.ids or super().holds_in(row, target)

    def erase(self, target: Target, reach: Reach, erasing: Erasing) -> int:
        found = self.rows(target, reach)
        with transaction.atomic():
            LessonRepeat.objects.filter(pk__in=[row.pk for row in found]).delete()
        return len(found)
