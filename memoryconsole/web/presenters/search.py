"""How the console shows a search: the matched words marked in each fact's text, and the lines
above the results (how many matched where, a corrected typo, a note on how it searched).

A part of the console's presenters (`memoryconsole.web.presenters`), kept apart for its size.
Pure: no queries, no file I/O.
"""

import re
from dataclasses import dataclass
from urllib.parse import urlencode

from django.urls import reverse

from memoryconsole.web.presenters.common import TAB_LABELS, plural
from memstore.console.search import SearchHit, SearchResults

_WORD_RE = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class Marks:
    """What to mark in a fact's text after a search: words matched by their start (a stemmed
    word matches its other forms: "memories" marks "memory"), or the text as typed."""

    prefixes: tuple[str, ...] = ()
    literal: str = ""

    def split(self, text: str) -> tuple[tuple[str, bool], ...]:
        """The text in pieces, True for each piece to mark."""
        return highlight(text, self)


def search_marks(searched: str, literal: bool) -> Marks:
    """The marks for a search: the searched words' stems, or the whole text if it was found
    as typed."""
    if literal:
        return Marks(literal=searched.lower())
    words = {w.lower() for w in _WORD_RE.findall(searched) if len(w) > 1}
    # Stemming drops at most a few letters ("memories" -> "memori"): match on a prefix.
    return Marks(
        prefixes=tuple(sorted(w if len(w) <= 4 else w[: max(4, len(w) - 3)] for w in words))
    )


def highlight(text: str, marks: "Marks") -> tuple[tuple[str, bool], ...]:
    """The text in pieces, True for each piece to mark (the template escapes every piece)."""
    spans: list[tuple[int, int]] = []
    lowered = text.lower()
    if marks.literal:
        start = lowered.find(marks.literal)
        while start >= 0 and marks.literal:
            spans.append((start, start + len(marks.literal)))
            start = lowered.find(marks.literal, start + len(marks.literal))
    else:
        for match in _WORD_RE.finditer(lowered):
            if any(match[0].startswith(p) for p in marks.prefixes):
                spans.append(match.span())
    parts: list[tuple[str, bool]] = []
    at = 0
    for start, end in spans:
        if start > at:
            parts.append((text[at:start], False))
        parts.append((text[start:end], True))
        at = end
    if at < len(text):
        parts.append((text[at:], False))
    return tuple(parts)


@dataclass(frozen=True, slots=True)
class SearchSummary:
    """The lines above search results: how many matched where, and any correction made."""

    line: str
    corrected: str  # "Showing matches for “budget”." when a typo was corrected, else ""
    typed: str  # what the person typed (for "search for … instead")
    note: str
    suggestion: str = ""  # "Did you mean …?" beside results found as typed


def search_summary(
    results: SearchResults, typed: str, *, everywhere: bool = False
) -> SearchSummary:
    """ "3 matches for “budget” across all tabs: Own memory 2 · About people 1"."""
    n = len(results.hits)
    total = n + results.more
    count = f"{n} best of {total}{'+' if results.more_capped else ''}" if results.more else str(n)
    line = f"{count} {plural(total, 'match', 'matches')} for “{results.searched}”"
    if results.literal:
        line = f"{count} {plural(total, 'fact contains', 'facts contain')} “{results.searched}” as typed"
    if everywhere:
        line += " in every bot you may see"
    elif results.per_tab:
        where = " · ".join(f"{TAB_LABELS[t]} {c}" for t, c in results.per_tab.items())
        line += f" across all tabs: {where}"
    else:
        line += " across all tabs"
    corrected = f"Showing matches for “{results.searched}”." if results.corrected else ""
    return SearchSummary(
        line=line,
        corrected=corrected,
        typed=typed,
        note=results.note,
        suggestion=results.suggestion,
    )


def why_link(hit: SearchHit, searched: str) -> str:
    """Where "Why here?" asks for a hit's breakdown (the same search, this fact)."""
    return f"{reverse('web:search_why')}?{urlencode({'q': searched, 'id': hit.row.fact.fact_id})}"


def bot_why_links(hits: list[SearchHit], searched: str, scope: str = "") -> list[str]:
    """Where "Why here?" on a bot's page asks for each hit's breakdown (that page's search):
    the path reversed once per bot, not once per hit (a keystroke shows 50)."""
    paths: dict[str, str] = {}
    links = []
    for hit in hits:
        if hit.bot not in paths:
            paths[hit.bot] = reverse("web:bot_search_why", args=[hit.bot])
        params = {"q": searched, "id": hit.row.fact.fact_id} | ({"scope": scope} if scope else {})
        links.append(f"{paths[hit.bot]}?{urlencode(params)}")
    return links


def why_fits(query, grouping: str = "") -> bool:
    """Whether a bot page's search shows recall's order, so "Why here?" can explain it: not
    when a filter drops hits after recall (tier, type, month; the places would not match) or
    the hits are grouped."""
    return not (query.tier or query.type or query.month or grouping)


def hit_link(hit: SearchHit, searched: str) -> str:
    """Where a workspace search hit opens: its bot's page, searching the same words."""
    return f"{reverse('web:bot', args=[hit.bot])}?{urlencode({'q': searched})}"
