"""The console's search: the API's recall (words and meaning, the relevance floor, the substring
fallback) over every tab of a bot at once, or over every bot a person may see.

The query is always searched as typed first, exactly as a bot's recall would search it (the
same ranking, the same relevance floor). Only when that finds nothing is a word that is in none
of the searched facts and close to one that is ("budjet", "lisbn") corrected and searched
instead (`memstore.console.spelling`; "search as typed" goes back); when the query as typed finds
something, a correction is only offered beside the results ("Did you mean …?"), never put in
their place: "plane ticket" is not "plan ticket". Hidden facts are found too (people see them; bots never do). Each hit says which bot's
page and which tab it belongs to, so the console can label it by scope; the bot page's filters
(scope, tier, type, month) narrow the hits.

The console never reranks (RECALL_RERANK is for the bots' recall): a search as you type runs
on every pause in typing, and a remote reranker would be called, and charged, each time, and
again by "Why here?". So every console search shows the fusion's order (words, meaning, date
and usage boosts), and "Why here?" (`memstore.console.why`) explains that same order.

Searches run within the reads' time budget (`memory_read`), as the bots' recall does: large
changes on disk are indexed in the background meanwhile, and facts without a vector yet are
found by their words ("Preparing search by meaning: 1,200 of 5,000 facts").

Does not: rank (recall does), decide highlighting (the console's presenters do).
"""

from dataclasses import dataclass, field
from datetime import date

from memstore.console.facts import FactQuery, FactRow, Tab, bot_tabs, rows_of
from memstore.console.spelling import query_corrected
from memstore.console.viewer import Viewer
from memstore.errors import NotAllowed
from memstore.facts.paths import Scope, all_scopes, memory_root
from memstore.facts.records import StoredFact
from memstore.index.budget import memory_read
from memstore.recall import RecallResult, recall_in_scopes
from memstore.recall.jobs import backfill_wanted

RESULTS = 50  # the most a console search shows (recall's own maximum)
_NO_BUDGET = 10**9  # people read a list; the bots' character budget does not apply
_STALE = "Files changed on disk are still being indexed: this is what was indexed before."
_UNAVAILABLE = "Search is unavailable right now (the database did not answer in time)."
TAB_OF_KIND = {"bot": "own", "user": "people", "project": "projects", "room": "rooms"}


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One fact found: its row, and the bot page and tab it is shown on."""

    row: FactRow
    bot: str
    tab: str


@dataclass(frozen=True, slots=True)
class SearchResults:
    """What a search found, best first, and how it searched."""

    hits: list[SearchHit]
    more: int  # further matches past the first RESULTS
    searched: str  # the query actually searched (the corrected one, if it was corrected)
    corrected: bool  # the query as typed found nothing: these are the corrected query's
    literal: bool  # nothing matched by words or meaning: facts containing the text as typed
    note: str  # recall's note (searched by words only, and why; meaning still in preparation)
    per_tab: dict[str, int] = field(default_factory=dict)
    suggestion: str = ""  # a correction offered beside results found as typed ("Did you mean")
    waiting: int = 0  # facts searched by words only: their vectors are still being made
    stale: bool = False  # large changes are still being indexed: the index as it stood
    unavailable: bool = False  # the search could not finish within the time budget
    more_capped: bool = False  # the literal fallback stopped counting: `more` is a lower bound


def bot_search(
    *, bot: str, viewer: Viewer, query: FactQuery, tabs: list[Tab] | None = None
) -> SearchResults:
    """Search every tab of a bot's page at once (or the one scope picked), filters applied."""
    tabs = tabs if tabs is not None else bot_tabs(bot=bot, viewer=viewer, counts=False)
    return _search(
        scopes=bot_scopes(tabs, query.scope),
        query=query,
        place=bot_places(bot, tabs),
        private=viewer.private_conversations,
    )


def bot_scopes(tabs: list[Tab], scope: str = "") -> list[Scope]:
    """The scopes a bot page's search reads: every tab's, or the one `scope` picked."""
    scopes = [s for t in tabs for s in t.scopes]
    if scope:
        scopes = [s for s in scopes if str(s) == scope]
        if not scopes:
            raise NotAllowed("That scope is not shown on this bot's page.")
    return scopes


def bot_places(bot: str, tabs: list[Tab]):
    """Where a found fact is shown on the bot's page, `(bot, tab)`, or None when it is not
    (another bot's shard of a shared scope)."""

    def place(fact: StoredFact) -> tuple[str, str] | None:
        for tab in tabs:
            if any(str(s) == fact.scope for s in tab.scopes) and tab.shard_bot in (
                None,
                fact.shard_bot,
            ):
                return bot, tab.name
        return None

    return place


def workspace_search(*, viewer: Viewer, query: FactQuery) -> SearchResults:
    """Search every bot the person may see: all own, project and legacy-room memory, and user
    memory (their own only, unless staff)."""
    root = memory_root()
    scopes = [s for s in all_scopes(root) if viewer.may_see(s)]

    def place(fact: StoredFact) -> tuple[str, str] | None:
        page_bot = fact.scope_name if fact.scope_kind == "bot" else fact.shard_bot
        if viewer.private_conversation(Scope("room", fact.scope_name)):
            return page_bot, "private"
        return page_bot, TAB_OF_KIND[fact.scope_kind]

    return _search(scopes=scopes, query=query, place=place, private=viewer.private_conversations)


def person_search(*, person: str, q: str, exact: bool = False) -> SearchResults:
    """Search a person's user memory (every bot's shard of it) for their About me page: the same
    recall, floor and spelling rule as the bot page and the workspace search. The caller has
    decided the viewer may see it (`memstore.console.aboutme.about_whom`)."""
    scope = Scope("user", person)

    def place(fact: StoredFact) -> tuple[str, str] | None:
        return fact.shard_bot, "people"

    return _search(scopes=[scope], query=FactQuery(q=q, exact=exact), place=place)


def _search(
    *, scopes: list[Scope], query: FactQuery, place, private: frozenset[str] | None = None
) -> SearchResults:
    text = " ".join(query.q.split())

    def recall(words: str) -> RecallResult:
        # rerank=False: see the module, the console shows the fusion's order
        return recall_in_scopes(
            scopes=scopes, query=words, limit=RESULTS, include_hidden=True,
            max_chars=_NO_BUDGET, rerank=False,
        )  # fmt: skip

    def read() -> tuple[str, str, RecallResult]:
        typed = recall(text)
        correction = "" if query.exact else query_corrected(text, scopes)
        if not correction:
            return "", "", typed
        if typed.items:
            return "", correction, typed  # found as typed: the correction is only offered
        return correction, "", recall(correction)

    # Within the reads' time budget, as the bots' recall: a drop-in of thousands of lines is
    # indexed in the background meanwhile, and no vector is made in this request. The sync's
    # check of the scopes' files rides in the first recall's terms + versions statement (one
    # round trip fewer per keystroke); a file changed on disk is synced and the read rerun.
    timed = memory_read(
        scopes=scopes,
        read=read,
        empty=lambda: ("", "", RecallResult(items=[], more=0, mode="lexical", note=_UNAVAILABLE)),
        fold=True,
        new_facts=backfill_wanted,
    )
    corrected, suggestion, result = timed.value
    searched = corrected or text
    hits = _hits(result, query, place, private)
    per_tab: dict[str, int] = {}
    for hit in hits:
        per_tab[hit.tab] = per_tab.get(hit.tab, 0) + 1
    literal = result.literal
    note = "" if literal or not (result.items or result.waiting) else result.note
    if timed.memory == "unavailable":
        note = _UNAVAILABLE
    elif timed.stale:
        note = " ".join(filter(None, [_STALE, note]))
    return SearchResults(
        hits=hits,
        more=result.more if len(hits) == len(result.items) else 0,
        more_capped=result.more_capped and len(hits) == len(result.items),
        searched=searched,
        corrected=bool(corrected),
        suggestion=suggestion,
        literal=literal,
        note=note,
        per_tab=per_tab,
        waiting=result.waiting,
        stale=timed.stale,
        unavailable=timed.memory == "unavailable",
    )


def _hits(result: RecallResult, query: FactQuery, place, private) -> list[SearchHit]:
    # Recall's facts this search shows (those with a place among the tabs, passing the
    # filters), as rows with their tab and bot.
    facts, places = [], []
    for fact in result.items:
        where = place(fact)
        if where is not None and _passes(fact, query):
            facts.append(fact)
            places.append(where)
    rows = rows_of(facts, [f"{f.fact_id}-{i}" for i, f in enumerate(facts)], private=private)
    return [SearchHit(r, b, t) for r, (b, t) in zip(rows, places, strict=True)]


def _passes(fact: StoredFact, query: FactQuery) -> bool:
    if query.tier and fact.tier != query.tier:
        return False
    if query.type and fact.meta.get("type", "fact") != query.type:
        return False
    if query.month:
        first = date.fromisoformat(query.month + "-01")
        if (fact.day.year, fact.day.month) != (first.year, first.month):
            return False
    return True
