"""The lexical side of recall: Postgres full-text search, any term may match, ranked like BM25.

Owns: turning a query into search terms and ranking the facts of some scopes that share any of
them. Terms are the query's English stems from Postgres's own parser (so "memories" finds
"memory"), plus exact, case-sensitive whole-word terms for short acronyms and names that the
English configuration drops as stopwords ("US", "IT", "Will"). Requiring every term finds
nothing for most natural questions, so terms are OR-ed; each shared term adds its inverse
document frequency in the searched scopes, scaled by BM25's length normalisation; a word found
in more than half of the searched facts (the person a memory is about) counts only when no
rarer query word is found. English terms use `Fact.search` and its GIN index; exact terms are a
regular expression over the searched facts' text: a scan of those facts, but no index to
maintain on every write.

Chinese, Japanese and Korean write no spaces between words, so Postgres's parser reads a whole
clause as one "word" that no question repeats. A query's runs of Han, kana and Hangul are read
instead as their overlapping character pairs (bigrams, as Lucene's CJK analyzer does; a lone
character stays itself), each an exact term found anywhere in a fact's text: "寿司はいつ" asks
for 寿司, 司は, はい, いつ, and BM25 weighs each pair as it weighs a word.

Does not: search by meaning, fuse, or decide who may read what (callers pass scopes).
"""

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from django.db import connection

from memstore.facts.paths import Scope
from memstore.facts.records import STORED_COLUMNS_BY_ROW, StoredFact, stored_from_values
from memstore.index.language import language_in_use

MAX_TERMS = 32
BM25_K1 = 1.2
BM25_B = 0.75
_TOKEN_RE = re.compile(r"[^\W_]+")
# Han (with its extensions and compatibility block), Hiragana, Katakana (with the half-width
# forms and the prolonged sound mark), Hangul syllables and jamo.
_CJK = "\u3005\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af\u1100-\u11ff"
_CJK_RUN_RE = re.compile(f"[{_CJK}]+")


@dataclass(frozen=True, slots=True)
class Term:
    """One search term: an English lexeme, or an exact word (letters and digits, case kept)."""

    kind: Literal["english", "exact"]
    word: str

    @property
    def param(self) -> str:
        """What the term's SQL condition (`_match`) compares with."""
        if self.kind == "exact" and _CJK_RUN_RE.fullmatch(self.word):
            return re.escape(self.word)  # CJK has no word boundaries: anywhere in the text
        if self.kind == "exact":
            return rf"\m{re.escape(self.word)}\M"  # Postgres word boundaries
        # A quoted lexeme cast to tsquery is taken as is: no second round of stemming.
        return "'" + self.word.replace("\\", "\\\\").replace("'", "''") + "'"


def lexical_terms(query: str) -> list[Term]:
    """The search terms of a query: its stems in the index's language, then exact terms for
    short acronyms and capitalised names that language would drop (at most 32 in all)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {terms_sql()}", [query, exact_candidates(query)])
        return terms_from(*cursor.fetchone(), query=query)


def terms_sql() -> str:
    """The query's lexemes in the word index's language (`memstore.index.language`: the
    configuration `Fact.search` is made with, English unless SEARCH_LANGUAGE says otherwise),
    and which exact candidates that language drops; two columns, so a caller can select them
    beside something else (`recall_search` does). Parameters: the query, the candidates."""
    config = language_in_use()  # a catalog name, checked by its pattern: safe to inline
    return (
        f"ARRAY(SELECT lexeme FROM unnest(to_tsvector('{config}'::regconfig, %s)) ORDER BY lexeme),"
        " ARRAY(SELECT DISTINCT t FROM unnest(%s::text[]) t"
        f" WHERE to_tsvector('{config}'::regconfig, t) = ''::tsvector ORDER BY 1)"
    )


def exact_candidates(query: str) -> list[str]:
    """Short acronyms and capitalised names of the query: exact terms if English drops them."""
    tokens = _TOKEN_RE.findall(query)
    return [
        token
        for i, token in enumerate(tokens)
        if 2 <= len(token) <= 3
        and (token.isupper() or any(c.isdigit() for c in token))
        or (i > 0 and token[:1].isupper() and token[1:].islower())
    ]


def terms_from(english: list[str], dropped: list[str], *, query: str) -> list[Term]:
    """The search terms from TERMS_SQL's two columns and the query's CJK bigrams (at most 32).
    A lexeme holding CJK letters (a clause Postgres read as one word) gives way to its pairs."""
    terms = [Term("english", lexeme) for lexeme in english if not _CJK_RUN_RE.search(lexeme)]
    terms += [Term("exact", word) for word in dropped]
    terms += [Term("exact", pair) for pair in cjk_bigrams(query)]
    return terms[:MAX_TERMS]


def cjk_bigrams(text: str) -> list[str]:
    """The overlapping character pairs of the text's CJK runs, once each, in order (a run of
    one character is itself)."""
    pairs: dict[str, None] = {}
    for run in _CJK_RUN_RE.findall(text):
        pairs.update(dict.fromkeys(run[i : i + 2] for i in range(max(len(run) - 1, 1))))
    return list(pairs)


def term_in(term: Term, text: str) -> bool:
    """Whether an exact term is in a fact's text, as the statement's test reads it."""
    if _CJK_RUN_RE.fullmatch(term.word):
        return term.word in text
    return re.search(rf"\b{re.escape(term.word)}\b", text) is not None


@dataclass(frozen=True, slots=True)
class LexicalHit:
    """A fact row that shares words with the query, and its score (> 0); `coverage`: the
    share of the query's term weight it holds (1.0 when not measured: the statement's path)."""

    pk: int
    fact_id: str
    day: date
    score: float
    coverage: float = field(default=1.0, compare=False)


@dataclass(frozen=True, slots=True)
class LexicalResult:
    """The best-scoring rows, how many distinct facts matched, and the stored facts of those
    rows and of the `also` rows, by row id (one round trip loads what fusion can pick)."""

    hits: list[LexicalHit]
    matched: int
    rows: dict[int, StoredFact] = field(default_factory=dict)


def _match(term: Term) -> str:
    if term.kind == "english":
        return "f.search @@ %s::tsquery"
    return "f.text ~ %s"


def lexical_search(
    *,
    scopes: list[Scope],
    terms: list[Term],
    limit: int,
    include_hidden: bool = False,
    also: list[int] = (),
    coverage: float = 0.0,
) -> LexicalResult:
    """Rows of these scopes sharing any term, best first (ties: newer, then by identity,
    scope and shard, so the order never depends on the order rows were indexed in).
    `matched` counts the distinct facts that passed the relevance floor (a score above zero: a
    word too common to count does not make a match) or are among the visible `also` rows (found
    another way), so a caller learns the size of the union in the same round trip; the `also`
    rows are loaded too but do not change the ranking. `coverage`: `matched` counts only facts
    holding at least that share of the query's term weight (each hit says its share)."""
    if not terms and not also:
        return LexicalResult(hits=[], matched=0)
    keys = [str(scope) for scope in scopes]
    flag_params = [term.param for term in terms]
    sql = _lexical_sql(terms, include_hidden=include_hidden)
    also = list(also)
    params = [*flag_params, keys, *flag_params, keys, limit, also, coverage, also, keys]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return LexicalResult(
        hits=[
            LexicalHit(pk=r[0], fact_id=r[1], day=r[2], score=r[3], coverage=r[5])
            for r in rows
            if r[0] is not None
        ],
        matched=rows[0][4],
        rows={r[6]: stored_from_values(r[7:]) for r in rows if r[6] is not None},
    )


def _weight_sql(count: int) -> tuple[str, str, str]:
    """SQL pieces for `count` query terms: document frequencies, idf weights (a term in more
    than half the facts only counts when no rarer term is found) and a candidate's idf sum."""
    rare_found = " OR ".join(f"(df{i} > 0 AND df{i} <= n / 2)" for i in range(count)) or "false"
    weights = "".join(
        f", CASE WHEN df{i} <= n / 2 OR NOT ({rare_found})"
        f" THEN ln(1 + (n - df{i} + 0.5) / (df{i} + 0.5)) ELSE 0 END AS w{i}"
        for i in range(count)
    )
    dfs = "".join(f", sum(m{i}::int)::float8 AS df{i}" for i in range(count))
    idf_sum = " + ".join(f"CASE WHEN c.m{i} THEN w.w{i} ELSE 0 END" for i in range(count)) or "0"
    return dfs, weights, idf_sum


def _total_sql(count: int) -> str:
    # The query's whole term weight, added in term order (as `word_rank` adds it).
    return "(" + (" + ".join(f"w.w{i}" for i in range(count)) or "0") + ")::float8"


def _lexical_sql(terms: list[Term], *, include_hidden: bool) -> str:
    count = len(terms)
    flags = "".join(f", {_match(term)} AS m{i}" for i, term in enumerate(terms))
    any_term = " OR ".join(_match(term) for term in terms) or "false"
    hidden = "" if include_hidden else "AND f.visibility <> 'hidden'"
    # Document frequencies come from the candidates themselves (every fact holding a term is
    # one). Each matching term adds BM25's idf; a fact's term frequency is taken as 1 (facts are
    # one sentence), so BM25's saturation reduces to its length normalisation. A word in more
    # than half the searched facts (the person a memory is about) says little and drowns rarer
    # words: it counts only when no rarer query word is found at all. Term weights are computed
    # once per query; each candidate only adds up floats (milliseconds over 100,000 facts).
    dfs, weights, idf_sum = _weight_sql(count)
    return f"""
        WITH cand AS MATERIALIZED (
            SELECT f.id, f.fact_id, f.day, f.scope_key, f.shard_bot,
                   length(f.text)::float8 AS len {flags}
            FROM memstore_fact f
            WHERE f.scope_key = ANY(%s) {hidden} AND ({any_term})
        ),
        stats AS (
            SELECT greatest(count(*), (
                       SELECT coalesce(sum(fact_count), 0) FROM memstore_memoryfile
                       WHERE scope_key = ANY(%s)))::float8 AS n,
                   greatest(avg(len), 1) AS avglen {dfs}
            FROM cand
        ),
        w AS (SELECT avglen {weights} FROM stats),
        scored AS MATERIALIZED (
            SELECT c.id, c.fact_id, c.day, c.scope_key, c.shard_bot,
                   ({idf_sum}) * {BM25_K1 + 1}
                   / (1 + {BM25_K1} * (1 - {BM25_B} + {BM25_B} * c.len / w.avglen)) AS score,
                   coalesce(({idf_sum}) / nullif({_total_sql(count)}, 0), 0) AS coverage
            FROM cand c, w
        ),
        top AS MATERIALIZED (
            SELECT id, fact_id, day, score, coverage, scope_key, shard_bot FROM scored
            WHERE score > 0
            ORDER BY score DESC, day DESC, fact_id COLLATE "C", scope_key COLLATE "C",
                     shard_bot COLLATE "C", id
            LIMIT %s
        ),
        ranked AS (
            SELECT id, fact_id, day, score, coverage, row_number() OVER (
                ORDER BY score DESC, day DESC, fact_id COLLATE "C", scope_key COLLATE "C",
                         shard_bot COLLATE "C", id) AS rk
            FROM top
        ),
        wanted AS (SELECT id FROM top UNION SELECT unnest(%s::bigint[])),
        found AS (
            SELECT fact_id FROM scored WHERE score > 0 AND coverage >= %s
            UNION SELECT f.fact_id FROM memstore_fact f
            WHERE f.id = ANY(%s) AND f.scope_key = ANY(%s) {hidden}
        )
        SELECT r.id, r.fact_id, r.day, r.score, mc.matched, r.coverage, f.id,
               {STORED_COLUMNS_BY_ROW}
        FROM (SELECT count(*) AS matched FROM found) mc
        LEFT JOIN (wanted w JOIN memstore_fact f ON f.id = w.id) ON true
        LEFT JOIN ranked r ON r.id = f.id
        ORDER BY r.rk NULLS LAST, f.id
    """
