"""What each side of a search finds before fusion: the words' candidates (ranked in this
process over scope snapshots, or by Postgres for a search too large to hold) and the meaning's
(nearest vectors), with how many facts matched and how many still wait for a vector; for those,
the static tier's list (`tiers`). The query's vector is computed on the recall pool beside the
sync and the word ranking; within a read's budget it is waited for only while time is left
(`MEANING_RESERVE_MS` kept for the rest), else the search goes on by words only (`Sides.late`)."""

import concurrent.futures
import logging
from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from memstore.facts.paths import Scope
from memstore.facts.records import (
    StoredFact,
)
from memstore.index import index_sync
from memstore.index.budget import read_left_ms
from memstore.index.sync import (
    SYNC_ROWS_SQL,
    SyncNeeded,
    sync_check_start,
    sync_fold_rows,
    sync_fold_wanted,
    sync_folded,
    sync_is_skipped,
)
from memstore.recall import fusion
from memstore.recall.jobs import backfill_wanted
from memstore.recall.lexical import (
    LexicalHit,
    Term,
    exact_candidates,
    lexical_search,
    terms_from,
    terms_sql,
)
from memstore.recall.query_vectors import query_vector_start
from memstore.recall.snapshot import CACHE_MAX_FACTS, snapshots_current, snapshots_ready
from memstore.recall.tiers import Tiers, static_current, static_side
from memstore.recall.vectors import vectors_missing, vectors_search, vectors_waiting
from memstore.recall.versions import VERSIONS_SQL, versions_parse
from memstore.recall.word_rank import word_rank
from memstore.rules.withheld import Withholding, withholding_parse, withholding_sql

logger = logging.getLogger(__name__)
CANDIDATES = 100  # rows each side contributes to fusion
LOCAL_MAX_FACTS = CACHE_MAX_FACTS  # searched facts ranked in this process; more go to Postgres
MEANING_RESERVE_MS = 60  # of a read's budget, kept for loading the rows once the vector is in


@dataclass(frozen=True, slots=True)
class Sides:
    """What each side found before fusion, how many facts matched, and any rows loaded."""

    lexical: list[fusion.Ranked]
    dense: list[fusion.Ranked]
    matched: int
    loaded: dict[int, StoredFact] | None  # rows the lexical statement loaded (large searches)
    model_failed: bool
    withheld: Withholding | None = None  # the read-time rule, read with the query's terms
    searched: int = 0  # facts in the searched scopes
    waiting: int = 0  # of them, facts without a vector yet
    terms: tuple[Term, ...] = ()  # the query's search terms
    vector: object = None  # the query's vector (numpy), None without meaning
    cosine_cut: float | None = None  # the cosine a semantic hit had to reach
    waiting_known: fusion.Waiting | None = None  # what is known of the waiting facts
    tiers: Tiers = Tiers()  # how many facts each tier of meaning could judge
    late: bool = False  # the query's vector was not ready within the read's budget: words only


def both_sides(
    scopes: list[Scope],
    query: str,
    embedder,
    *,
    words: bool,
    hidden: bool,
    withhold: tuple[str | None] | None = None,
) -> Sides:
    # A remembered query vector comes back at once; a new one is computed on the recall pool
    # while this thread syncs and ranks by words (see query_vectors, BESIDE_SQL).
    pending = query_vector_start(embedder, query) if embedder is not None else None
    terms, versions, rule = _synced_terms_and_versions(query, scopes, withhold)
    searched = sum(version[-1] for version in versions.values())
    snapshots, building = _snapshots(versions, [str(scope) for scope in scopes], searched)
    if building:
        pending = None
    ranking = None
    if words and snapshots is not None:
        ranking = word_rank(
            snapshots, terms, facts=searched, limit=CANDIDATES, include_hidden=hidden
        )
    vector, late = _vector_or_none(pending)
    dense, waiting, cut = [], 0, None
    static, served, static_cut = [], 0, None
    if vector is not None:
        dense, waiting, cut = _dense(scopes, vector, embedder, hidden, versions, snapshots)
        if waiting:
            backfill_wanted()  # the worker makes the missing vectors; this search goes on
            if words and snapshots is not None:
                static, served, static_cut = _static(snapshots, query, embedder, hidden)
    failed = pending is not None and vector is None and not late
    if snapshots is not None:  # facts not in the snapshots used (being read behind)
        waiting += max(0, searched - sum(snapshot.rows for snapshot in snapshots))
    if building and embedder is not None:
        # Meaning was not searched (its index is being read behind): the words-only count is
        # the backlog's (`recall.backlog`), as every other page says, not every fact searched.
        keys = [str(scope) for scope in scopes]
        late, waiting = True, vectors_waiting(embedder.name, keys, versions)
    elif building:
        waiting = searched
    served = min(served, waiting)
    tiers = Tiers(full=searched - waiting, static=served, words=waiting - served)
    counts = {"searched": searched, "waiting": waiting, "tiers": tiers}
    seen = {"terms": tuple(terms), "vector": vector, "cosine_cut": cut, "late": late}
    if ranking is not None:
        judge = embedder if vector is not None else None
        lexical, matched, unjudged = _word_side(ranking, dense + static, judge, waiting=waiting)
        share = tiers.full / searched if searched else 1.0
        known = fusion.Waiting(static, frozenset(unjudged), cut, static_cut, embedded=share)
        seen["waiting_known"] = known if waiting else None
        return Sides(lexical, dense, matched, None, failed, rule, **counts, **seen)
    if words or failed:
        # Ranked by Postgres with facts still waiting for vectors: no floor for words this time.
        floor = vector is not None and not counts["waiting"]
        lexical, matched, loaded = _lexical(scopes, terms, dense, hidden, meaning=floor)
        return Sides(lexical, dense, matched, loaded, failed, rule, **counts, **seen)
    matched = len({hit.fact_id for hit in dense})
    return Sides([], dense, matched, None, failed, rule, **counts, **seen)


def _snapshots(versions: dict, keys: list[str], searched: int) -> tuple[list | None, bool]:
    """The scopes' snapshots to search, and whether one is being built behind this search.
    Scopes that fit in this process are searched from their snapshots; larger searches (a
    person's whole workspace in the console) are ranked by Postgres, which loads the rows.
    Within a read's budget a snapshot too large to read now is built behind this search,
    which meanwhile uses the one held before (its new facts wait, as for a vector) or, with
    none held yet, is ranked by Postgres, by words only."""
    if searched > LOCAL_MAX_FACTS:
        return None, False
    if sync_is_skipped():
        snapshots = snapshots_ready(versions, keys)
        return snapshots, snapshots is None
    return snapshots_current(versions, keys), False


def _static(snapshots, query: str, embedder, hidden: bool) -> tuple[list, int, float | None]:
    """The static tier's list over the waiting facts (none without a tier or its table)."""
    tier = static_current(embedder)
    if tier is None:
        return [], 0, None
    return static_side(snapshots, query, tier, embedder, limit=CANDIDATES, include_hidden=hidden)


def _word_side(ranking, dense: list, embedder, *, waiting: int) -> tuple[list, int, set[str]]:
    """The words' candidates, how many facts matched, and which of the candidates wait for a
    vector: searched by meaning too (`embedder`), a word match meaning does not support must
    clear the floor, except a fact meaning could not judge yet (no vector: it keeps its words)."""
    lexical = [_ranked(hit) for hit in ranking.hits]
    if embedder is None:
        return lexical, ranking.matched({hit.fact_id for hit in dense}, coverage=0.0), set()
    supported, unjudged = dense, set()
    if waiting:
        unjudged = vectors_missing(embedder.name, [hit.fact_id for hit in lexical])
        supported = dense + [hit for hit in lexical if hit.fact_id in unjudged]
    lexical = fusion.lexical_floor(lexical, supported, coverage=fusion.LEXICAL_COVERAGE)
    matched = ranking.matched({hit.fact_id for hit in supported}, coverage=fusion.LEXICAL_COVERAGE)
    return lexical, matched, unjudged


def _vector_or_none(pending) -> tuple[object, bool]:
    """The query's vector, or None without a model or when the model failed for it; and
    whether it was given up for want of time (the read's budget, less MEANING_RESERVE_MS)."""
    if pending is None:
        return None, False
    left = read_left_ms()
    wait = None if left is None else max(0.0, left - MEANING_RESERVE_MS) / 1000
    try:
        return pending.result(timeout=wait), False
    except concurrent.futures.TimeoutError:
        logger.info("query vector not ready within the read's budget; words only")
        return None, True
    except Exception:
        # A remote embedding endpoint that is down must not take recall down with it.
        logger.exception("query embedding failed; searching by words only")
        return None, False


def _synced_terms_and_versions(
    query: str, scopes: list[Scope], withhold: tuple[str | None] | None
) -> tuple[list[Term], dict[str, tuple], Withholding | None]:
    """`_terms_and_versions` after syncing the scopes. A search that syncs them itself (not
    within a read's budget, which synced or folded the check already) carries the sync's stat
    check in that statement: nothing behind, one round trip fewer; a file changed, new, gone or
    racy and due, what was read is dropped, the scopes sync as usual and are read again."""
    if sync_is_skipped():
        return _terms_and_versions(query, scopes, withhold)
    check = sync_check_start(scopes=scopes)
    try:
        with sync_folded(check):
            found = _terms_and_versions(query, scopes, withhold)
        if check.done:
            return found
    except SyncNeeded:
        pass
    index_sync(scopes=scopes)
    return _terms_and_versions(query, scopes, withhold)


def _terms_and_versions(
    query: str, scopes: list[Scope], withhold: tuple[str | None] | None = None
) -> tuple[list[Term], dict[str, tuple], Withholding | None]:
    """The query's search terms, the searched scopes' versions and (when `withhold` names the
    room's person, or None for a room without one) the read-time rule: one statement, which
    also carries the sync's stat check when the caller folded it in (`sync_folded`)."""
    keys = [str(scope) for scope in scopes]
    sql, params = f"SELECT {terms_sql()}, ({VERSIONS_SQL})", [query, exact_candidates(query), keys]
    if folded := sync_fold_wanted(keys):
        sql, params = f"{sql}, ({SYNC_ROWS_SQL})", [*params, keys]
    if withhold is not None:
        rule_sql, rule_params = withholding_sql(person=withhold[0])
        sql, params = f"{sql}, ({rule_sql})", [*params, *rule_params]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        english, dropped, found, *rest = cursor.fetchone()
    if folded:
        sync_fold_rows(rest.pop(0))  # raises SyncNeeded when a file changed: synced, read again
    controls = rest
    rule = withholding_parse(controls[0], person=withhold[0]) if withhold is not None else None
    return terms_from(english, dropped, query=query), versions_parse(found), rule


def _dense(
    scopes: list[Scope], vector, embedder, include_hidden: bool, versions: dict, snapshots
) -> tuple[list[fusion.Ranked], int, float]:
    nearest = vectors_search(
        scopes=scopes,
        query=vector,
        embedder=embedder,
        limit=CANDIDATES,
        include_hidden=include_hidden,
        versions=versions,
        snapshots=snapshots,
    )
    hits = [
        fusion.Ranked(pk=h.pk, fact_id=h.fact_id, day=h.day, score=h.cosine) for h in nearest.hits
    ]
    cut = fusion.dense_cut(
        hits,
        floor=_cosine_floor(embedder.name),
        # Fewer hits than asked for: they are every fact searched, so their median is known.
        complete=len(nearest.hits) < CANDIDATES and not nearest.waiting,
    )
    return [hit for hit in hits if hit.score >= cut], nearest.waiting, cut


def _ranked(hit: LexicalHit) -> fusion.Ranked:
    return fusion.Ranked(
        pk=hit.pk, fact_id=hit.fact_id, day=hit.day, score=hit.score, coverage=hit.coverage
    )


def _lexical(
    scopes: list[Scope],
    terms: list[Term],
    dense: list[fusion.Ranked],
    include_hidden: bool,
    *,
    meaning: bool,
) -> tuple[list[fusion.Ranked], int, dict[int, StoredFact]]:
    # The dense hits ride along so `matched` counts facts found either way, and so the same
    # round trip loads every row fusion can pick. Searched by meaning too, the floor for
    # words meaning does not support applies (as on the in-process path).
    found = lexical_search(
        scopes=scopes,
        terms=terms,
        limit=CANDIDATES,
        include_hidden=include_hidden,
        also=[hit.pk for hit in dense],
        coverage=fusion.LEXICAL_COVERAGE if meaning else 0.0,
    )
    lexical = [_ranked(hit) for hit in found.hits]
    floored = fusion.lexical_floor(lexical, dense, coverage=fusion.LEXICAL_COVERAGE)
    return (floored if meaning else lexical), found.matched, found.rows


def _cosine_floor(model: str) -> float:
    configured = settings.RECALL_COSINE_FLOOR
    if configured is not None:
        return float(configured)
    return fusion.COSINE_FLOORS.get(model, fusion.COSINE_FLOOR)
