"""Dates a search query mentions, so recall can prefer facts saved around then. Pure: no I/O.

Every fact carries the date it was saved, so "what did we decide in March?" or "the painting
she showed on October 13, 2023" name a window of days. Understood: ISO dates (2026-03-05),
"13 October 2023", "October 13, 2023", "October 2023", a capitalised month alone ("in
March": any year) and a year alone ("in 2024"). Month names must be capitalised, so the verb
"may" is not a month. Relative dates ("last week") are not parsed: a query has no "now".
"""

import calendar
import re
from dataclasses import dataclass
from datetime import date

SLACK_DAYS = 3  # a fact is often saved a few days after what it describes, or just before

_MONTHS = {name: i for i, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name[:3]: i for name, i in list(_MONTHS.items()) if name != "May"}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\b\.?"
_MENTION_RE = re.compile(
    r"\b(?P<iso>(?P<iy>\d{4})-(?P<im>\d{2})-(?P<id>\d{2}))\b"
    rf"|\b(?:(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+)?{_MONTH}"
    r"(?:\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)?\b)?(?:,?\s+(?P<year>(?:19|20)\d{2})\b)?"
)
_YEAR_RE = re.compile(r"\b(?:19|20)\d{2}\b")


@dataclass(frozen=True, slots=True)
class DateMention:
    """A day, a month (of a year, or of any year) or a year named in a query."""

    year: int | None = None
    month: int | None = None
    day: int | None = None

    def covers(self, when: date, slack: int = SLACK_DAYS) -> bool:
        """Whether a fact saved on `when` falls in this mention's window."""
        if self.day is not None and self.month is not None:
            try:
                target = date(self.year or when.year, self.month, self.day)
            except ValueError:
                return False
            return abs((when - target).days) <= slack
        if self.month is not None:
            return when.month == self.month and self.year in (None, when.year)
        return self.year == when.year


def date_mentions(query: str) -> list[DateMention]:
    """Every date, month or year the query names (years alone only when nothing finer is)."""
    found = []
    for match in _MENTION_RE.finditer(query):
        if match["iso"]:
            try:
                day = date(int(match["iy"]), int(match["im"]), int(match["id"]))
            except ValueError:
                continue
            found.append(DateMention(year=day.year, month=day.month, day=day.day))
            continue
        day = match["d1"] or match["d2"]
        found.append(
            DateMention(
                year=int(match["year"]) if match["year"] else None,
                month=_MONTHS[match["month"]],
                day=int(day) if day and 1 <= int(day) <= 31 else None,
            )
        )
    if not found:
        found = [DateMention(year=int(year)) for year in _YEAR_RE.findall(query)]
    return found


def in_any(mentions: list[DateMention], when: date) -> bool:
    """Whether a date falls in any of the mentions' windows."""
    return any(mention.covers(when) for mention in mentions)
