"""Why recall answered what it did: the breakdown behind `recall?explain=true`.

Owns: `explanation`, which, for each result, says the query words it shares and its BM25-like
word score, its cosine, its place in each list, the fusion's score, the boosts (a date the
query names, the reranker) and the floors the search applied; and `expected_why`, which says
where a fact the caller expected fell and why: past the limit, below a floor, sharing no
word, not embedded yet, hidden, expired, withheld, or that no fact this room may read holds it.

Privacy: an expected fact the room may not read (another scope, a private fact outside a
direct room) is answered exactly as a text or id no fact holds, "no fact this room may read
holds this text" (or "has this id"), and nothing more: not its text, not whether it exists. Results are explained only for facts the answer
shows.

Does not: search (it reads what `recall_search` found), or change any order.
"""

import re
from dataclasses import dataclass, field
from datetime import date

import numpy as np
from django.db import connection

from memstore.facts.markdown import fact_identity
from memstore.facts.paths import Scope
from memstore.facts.records import STORED_COLUMNS_BY_ROW, StoredFact, stored_from_values
from memstore.facts.validity import is_expired, until_of
from memstore.recall import fusion
from memstore.recall.lexical import Term, term_in
from memstore.recall.vectors import vectors_fetch
from memstore.rules.withheld import Withholding

# What an expectation no readable fact answers gets: the same words whether no fact anywhere
# holds it or one the room may not read does (another scope, a private fact outside a direct
# room), so a bot can't probe other rooms' memory; never "not visible", which implied one exists.
NO_FACT_TEXT = "No fact this room may read holds this text."
NO_FACT_ID = "No fact this room may read has this id."
_FACT_ID = re.compile(r"[0-9a-f]{16}")


@dataclass(frozen=True, slots=True)
class ResultWhy:
    """One result and what put it where it is (`place`: 1 = first)."""

    fact_id: str
    place: int
    terms: list[str]  # the query's search terms this fact holds
    words: float  # its BM25-like word score (0: not found by words)
    words_rank: int | None
    cosine: float | None  # None: not found by meaning
    meaning_rank: int | None
    fusion: float  # the fused score, date boost included
    fusion_rank: int
    date_boost: float
    rerank_score: float | None = None
    rerank_rank: int | None = None
    rerank_kept: bool = False  # not sent to the reranker: kept its fusion place
    static_cosine: float | None = None  # waiting for its full vector: the static tier's cosine
    static_rank: int | None = None  # its place in the static tier's list
    capped: bool = False  # meaning-only, narrowly above the floor: held below the best word match


@dataclass(frozen=True, slots=True)
class ExpectedWhy:
    """Where an expected fact fell: `place` in the results (None: not shown) and why."""

    expected: str
    fact_id: str | None  # None when not visible to this room
    text: str | None
    place: int | None
    reason: str


@dataclass(slots=True)
class Explanation:
    """The whole breakdown of one recall."""

    terms: list[str]
    cosine_floor: float | None  # the cosine a hit by meaning had to reach
    words_floor: float  # the share of term weight a word match needs without meaning's support
    dates: list[str]  # the dates the query names (their facts get the date boost)
    reranker: str | None
    reranked: bool
    results: list[ResultWhy]
    meaning: str = "words"  # which tier of meaning served: full, static, mixed or words
    tiers: object = None  # `tiers.Tiers`: facts judged by the full model, the static tier, words
    static_floor: float | None = None  # the static cosine a waiting fact had to reach
    expected: list[ExpectedWhy] = field(default_factory=list)
    # What `expected_why` reads; not part of the answer.
    fused: list = field(default_factory=list, repr=False)
    vector: object = field(default=None, repr=False)
    model: str | None = field(default=None, repr=False)
    limit: int = 0
    withheld: Withholding | None = field(default=None, repr=False)
    raw_terms: list[Term] = field(default_factory=list, repr=False)


def explanation(found, fused, result, mentions, *, reranked, reranker, limit, model):
    """The breakdown of a fused recall (`found`: the Sides; `result`: the RecallResult;
    `reranked`: what `rerank_top` did, if it ran; `model`: the embedder's name)."""
    by_id = {f.fact_id: (rank, f) for rank, f in enumerate(fused, start=1)}
    held = _terms_held([f for f in result.items], list(found.terms))
    rows = []
    for place, fact in enumerate(result.items, start=1):
        rank, f = by_id.get(fact.fact_id, (0, None))
        if f is None:
            continue
        rows.append(
            ResultWhy(
                fact_id=fact.fact_id,
                place=place,
                terms=held.get(fact.fact_id, []),
                words=round(f.lexical, 4),
                words_rank=f.lexical_rank,
                cosine=None if f.cosine is None else round(f.cosine, 4),
                meaning_rank=f.dense_rank,
                fusion=round(f.score, 5),
                fusion_rank=rank,
                date_boost=round(f.date_bonus, 5),
                rerank_score=None
                if reranked is None or fact.fact_id not in reranked.scores
                else round(reranked.scores[fact.fact_id], 4),
                rerank_rank=None if reranked is None else reranked.ranks.get(fact.fact_id),
                rerank_kept=reranked is not None and fact.fact_id in reranked.kept,
                static_cosine=None if f.static_cosine is None else round(f.static_cosine, 4),
                static_rank=f.static_rank,
                capped=f.capped,
            )
        )
    return Explanation(
        terms=[_label(t) for t in found.terms],
        cosine_floor=None if found.cosine_cut is None else round(found.cosine_cut, 4),
        words_floor=fusion.LEXICAL_COVERAGE,
        dates=[_mention_label(m) for m in mentions],
        reranker=None if reranker is None else reranker.name,
        reranked=result.reranked,
        results=rows,
        meaning=result.meaning,
        tiers=result.tiers,
        static_floor=_static_floor(found),
        fused=fused,
        vector=found.vector,
        model=model,
        limit=limit,
        withheld=found.withheld,
        raw_terms=list(found.terms),
    )


def _static_floor(found) -> float | None:
    known = found.waiting_known
    return None if known is None or known.static_cut is None else round(known.static_cut, 4)


def expected_why(
    explained: Explanation,
    expected: list[str],
    *,
    scopes: list[Scope],
    seen: frozenset[str],
    shown: list[StoredFact],
    today: date | None = None,
) -> list[ExpectedWhy]:
    """For each expected fact (an id, or its text), where it fell and why; `seen`: the
    visibilities this room may see, `shown`: the results."""
    keys = [str(scope) for scope in scopes]
    places = {fact.fact_id: place for place, fact in enumerate(shown, start=1)}
    fused_rank = {f.fact_id: rank for rank, f in enumerate(explained.fused, start=1)}
    answers = []
    for asked in expected:
        fact = _find(asked, keys)
        if fact is None or (fact.visibility == "private" and "private" not in seen):
            none = NO_FACT_ID if _FACT_ID.fullmatch(asked.strip().lower()) else NO_FACT_TEXT
            answers.append(ExpectedWhy(asked, None, None, None, none))
            continue
        why = _reason(fact, explained, places, fused_rank, explained.raw_terms, seen, today)
        # A hidden fact (to a bot) or a withheld one (a secret, an excluded topic) is named
        # for what it is, never shown: the reason, not its text.
        unseen = (fact.visibility == "hidden" and "hidden" not in seen) or (
            explained.withheld is not None and explained.withheld.reason(fact) is not None
        )
        text = None if unseen else fact.text
        answers.append(ExpectedWhy(asked, fact.fact_id, text, places.get(fact.fact_id), why))
    return answers


def _reason(fact, explained, places, fused_rank, terms, seen, today) -> str:
    if fact.fact_id in places:
        return f"Shown at place {places[fact.fact_id]}."
    if fact.visibility == "hidden" and "hidden" not in seen:
        return "Hidden (visibility=hidden): left out of recall."
    if is_expired(fact.meta, today or date.today()):  # the one rule recall skips them by
        return f"Expired: valid until {until_of(fact.meta)}."
    if explained.withheld is not None and (why := explained.withheld.reason(fact)):
        return {
            "topic": "Withheld: it touches a topic a person excluded.",
            "paused": "Withheld: the person paused memory.",
            "secret": "Withheld: the secret detector flags it.",
            "instruction": "Withheld: it reads as an instruction to a model, not a fact.",
        }[why]
    if fact.fact_id in fused_rank:
        rank = fused_rank[fact.fact_id]
        return (
            f"Ranked {rank} by words and meaning, past the {explained.limit} results asked "
            "for (or past the character budget)."
        )
    held = _terms_held([fact], terms).get(fact.fact_id, [])
    parts = []
    if held:
        parts.append(
            f"It shares {', '.join(held)} with the query, but meaning does not support it and "
            f"those words hold less than {explained.words_floor:.0%} of the query's word weight."
        )
    else:
        parts.append("It shares no search word with the query.")
    if explained.model is None or explained.vector is None:
        parts.append("Meaning was not searched.")
    else:
        vector = vectors_fetch(explained.model, [fact.fact_id]).get(fact.fact_id)
        if vector is None:
            parts.append("Not embedded yet: until its vector is made it is found by words only.")
        else:
            cosine = float(np.dot(vector, explained.vector))
            floor = explained.cosine_floor
            if floor is not None and cosine < floor:
                parts.append(f"Below the floor: cosine {cosine:.3f}, under {floor:.3f}.")
            else:
                parts.append(f"Cosine {cosine:.3f}, but more than 100 facts are nearer.")
    return " ".join(parts)


def _find(asked: str, keys: list[str]) -> StoredFact | None:
    """The fact an expectation names, in these scopes only: by id, then by exact text, then by
    text it contains (newest first)."""
    asked = " ".join(asked.split())
    if not asked:
        return None
    ids = [asked.lower()] if _FACT_ID.fullmatch(asked.lower()) else []
    ids.append(fact_identity(asked))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {STORED_COLUMNS_BY_ROW} FROM memstore_fact f WHERE f.scope_key = ANY(%s)"
            " AND (f.fact_id = ANY(%s) OR f.text ILIKE %s) ORDER BY (f.fact_id = ANY(%s)) DESC,"
            " f.day DESC, f.id LIMIT 1",
            [keys, ids, "%" + _like(asked) + "%", ids],
        )
        row = cursor.fetchone()
    return stored_from_values(row) if row else None


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _terms_held(facts: list[StoredFact], terms: list[Term]) -> dict[str, list[str]]:
    """Which of the query's terms each fact holds (English lexemes by its search vector,
    exact terms by whole word, case kept)."""
    if not facts or not terms:
        return {}
    english = {t.word for t in terms if t.kind == "english"}
    lexemes: dict[str, set[str]] = {}
    if english:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT DISTINCT ON (fact_id) fact_id, tsvector_to_array(search)"
                " FROM memstore_fact WHERE fact_id = ANY(%s)",
                [[f.fact_id for f in facts]],
            )
            lexemes = {fact_id: set(words) for fact_id, words in cursor.fetchall()}
    held = {}
    for fact in facts:
        found = [
            _label(t)
            for t in terms
            if (t.kind == "english" and t.word in lexemes.get(fact.fact_id, ()))
            or (t.kind == "exact" and term_in(t, fact.text))
        ]
        held[fact.fact_id] = found
    return held


def _mention_label(mention) -> str:
    """A date the query names, as a person writes it: 2026-11-01, 2026-11, month 11, 2026."""
    year, month, day = mention.year, mention.month, mention.day
    if month is not None and day is not None:
        return f"{year:04d}-{month:02d}-{day:02d}" if year else f"--{month:02d}-{day:02d}"
    if month is not None:
        return f"{year:04d}-{month:02d}" if year else f"month {month}"
    return f"{year:04d}" if year else str(mention)


def _label(term: Term) -> str:
    return term.word if term.kind == "english" else f'"{term.word}"'
