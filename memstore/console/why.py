"""The console's "Why here?" for one search result: recall's breakdown for that fact.

Owns: `search_why`, which runs the console's search again (the same scopes, the same recall
with the same floor, hidden facts included as the console shows them) with `explain`, and
returns the breakdown of one fact: its place, the words it shares and their score, its cosine,
each list's rank, the fusion's score, the boosts; or, for a fact that is not among the results,
where it fell and why. A fact the person may not see is only "not visible", as over the API.
With `bot`, the search is the bot page's (that bot's tabs, or the one scope picked), and places
count only the facts that page shows.

Like every console search it never reranks (`memstore.console.search`): the order explained is
the fusion's, the order the person saw, and no reranker is called to explain it.

Does not: present it (the console's presenters do), or search differently from the console.
"""

from dataclasses import dataclass, replace

from memstore.console.facts import bot_tabs
from memstore.console.search import bot_places, bot_scopes
from memstore.console.viewer import Viewer
from memstore.facts.paths import all_scopes, memory_root
from memstore.index.budget import memory_read
from memstore.recall import recall_in_scopes
from memstore.recall.explain import ExpectedWhy, Explanation, ResultWhy, expected_why
from memstore.recall.jobs import backfill_wanted
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


def search_why(
    *, viewer: Viewer, query: str, fact_id: str, bot: str | None = None, scope: str = ""
) -> Why:
    """Why `fact_id` came where it did in the console search for `query`: the workspace
    search, or with `bot` that bot page's (narrowed to `scope`, if one was picked)."""
    query = " ".join(query.split())
    if bot is None:
        scopes = [s for s in all_scopes(memory_root()) if viewer.may_see(s)]
        place = None
    else:
        tabs = bot_tabs(bot=bot, viewer=viewer, counts=False)
        scopes, place = bot_scopes(tabs, scope), bot_places(bot, tabs)

    def read():
        return recall_in_scopes(
            scopes=scopes,
            query=query,
            limit=RESULTS,
            include_hidden=True,
            max_chars=_NO_BUDGET,
            rerank=False,  # the console's order: the fusion's (see the module)
            explain=True,
        )

    timed = memory_read(scopes=scopes, read=read, empty=lambda: None, new_facts=backfill_wanted)
    result = timed.value
    if result is None or result.explain is None:
        return Why(query, None, None, None, unavailable=True)
    why = result.explain
    shown = result.items
    if place is not None:
        shown = [fact for fact in shown if place(fact) is not None]
        ids = {fact.fact_id for fact in shown}
        kept = [row for row in why.results if row.fact_id in ids]
        why.results = [replace(row, place=n) for n, row in enumerate(kept, start=1)]
    for row in why.results:
        if row.fact_id == fact_id:
            return Why(query, why, row, None)
    (expected,) = expected_why(
        why, [fact_id], scopes=scopes, seen=frozenset(VISIBILITIES), shown=shown
    )
    return Why(query, why, None, expected)
