"""The console's "Why here?" for one search result: recall's breakdown for that fact.

Owns: `search_why`, which runs the workspace search again (the same scopes, the same recall
with the same floor, hidden facts included as the console shows them) with `explain`, and
returns the breakdown of one fact: its place, the words it shares and their score, its cosine,
each list's rank, the fusion's score, the boosts; or, for a fact that is not among the results,
where it fell and why. A fact the person may not see is only "not visible", as over the API.

Does not: present it (the console's presenters do), or search differently from `/search/`.
"""

from dataclasses import dataclass

from memstore.console.viewer import Viewer
from memstore.facts.paths import all_scopes, memory_root
from memstore.prompt.budget import memory_read
from memstore.recall import recall_in_scopes
from memstore.recall.explain import ExpectedWhy, Explanation, ResultWhy, expected_why
from memstore.vocabulary import VISIBILITIES

RESULTS = 50  # as the console's search
_NO_BUDGET = 10**9


@dataclass(frozen=True, slots=True)
class Why:
    """One fact's breakdown: `result` when it is among the results, else `expected`."""

    query: str
    explanation: Explanation | None
    result: ResultWhy | None
    expected: ExpectedWhy | None
    unavailable: bool = False


def search_why(*, viewer: Viewer, query: str, fact_id: str) -> Why:
    """Why `fact_id` came where it did in the workspace search for `query` (see the module)."""
    query = " ".join(query.split())
    scopes = [s for s in all_scopes(memory_root()) if viewer.may_see(s)]

    def read():
        return recall_in_scopes(
            scopes=scopes,
            query=query,
            limit=RESULTS,
            include_hidden=True,
            max_chars=_NO_BUDGET,
            explain=True,
        )

    timed = memory_read(scopes=scopes, read=read, empty=lambda: None)
    result = timed.value
    if result is None or result.explain is None:
        return Why(query, None, None, None, unavailable=True)
    why = result.explain
    for row in why.results:
        if row.fact_id == fact_id:
            return Why(query, why, row, None)
    (expected,) = expected_why(
        why, [fact_id], scopes=scopes, seen=frozenset(VISIBILITIES), shown=result.items
    )
    return Why(query, why, None, expected)
