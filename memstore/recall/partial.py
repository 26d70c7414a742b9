"""Facts containing the query as typed, for recall's last resort (nothing matched by words or
meaning): a console keystroke on a partial word ("lisb") lands here on every key.

What is shown is a page of the newest matches and how many there are; `newest_containing`
reads both in two statements that stop early:

- the page: `ORDER BY day DESC, …` with a LIMIT, one ordered arm per scope merged by
  `UNION ALL` (up to ARMS_MAX scopes), so that Postgres can serve each arm by walking its
  scope's part of the index `fact_scope_day_id` newest first, checking each row's text until
  the page is full (a common text fills it after a few hundred rows), or, for a rare text,
  from the matches the trigram index finds, then sorted (the planner picks by the text's
  estimated share);
- the count: distinct facts among the first `COUNT_CAP + 1` matching rows in any order, so it
  stops there too; past the cap the console says "1000+" (as the bot page's count does).

Which rows match: `text ILIKE '%…%'` with the typed `%`, `_` and `\\` escaped. Where the
database has pg_trgm's trigram index on the text (`fact_text_trgm`, migration 0021 makes it
where the server offers pg_trgm) that statement is answered from the index: the exact
semantics, indexed. Without it (a `DATABASE_URL` server without pg_trgm) the words typed are
first looked up as prefixes in the GIN index on the search vector (`'lisb':*`), and only those
candidates are checked with `ILIKE`; a fact where the text appears inside a word ("isbon") is
found by that path only when no fact has a word starting with it (then the scan runs). Which
path a database offers is asked once per process and database.
"""

import re
from dataclasses import dataclass

from django.db import connection
from django.db.models import BooleanField, F, QuerySet
from django.db.models.expressions import RawSQL

from memstore.facts.paths import Scope
from memstore.facts.ranking import RANK_ORDER_FIELDS
from memstore.facts.records import StoredFact, stored_from_values
from memstore.models import Fact

TRIGRAM_INDEX = "fact_text_trgm"
COUNT_CAP = 1000  # distinct matches counted; more are shown as "1000+"
ARMS_MAX = 24  # scopes read as one ordered arm each (see `_page`)
_WORD_RE = re.compile(r"\w+")
_LIKE_SPECIAL = re.compile(r"[\\%_]")  # escaped with a backslash, LIKE's default escape
# What a found fact is made of, in `stored_from_values`' order: not the line or the search
# vector, which are most of a row's bytes.
_STORED = (
    "fact_id",
    "day",
    "text",
    "tier",
    "scope_key",
    "shard_bot",
    "file_path",
    "rank",
    "visibility",
    "meta",
    "position",
)
# The page's order (recall's rank order within a day), and the same over a merge of ordered
# arms, which can only name the columns they select.
_TIES = ("scope_key", "shard_bot", "id")
_MERGED_ORDER = tuple("-file_path" if f == "-file__path" else f for f in RANK_ORDER_FIELDS)
_trigram: dict[str, bool] = {}  # database name -> whether the trigram index exists


@dataclass(frozen=True, slots=True)
class Containing:
    """The newest facts containing the text, and how many facts contain it."""

    facts: list[StoredFact]  # newest first, ties in rank order; copies in several shards kept
    matched: int  # distinct facts containing the text, at most COUNT_CAP
    capped: bool  # more than COUNT_CAP rows matched: `matched` is a lower bound ("1000+")


def trigram_ready() -> bool:
    """Whether this database holds the trigram index on facts' text (asked once per process)."""
    name = connection.settings_dict["NAME"]
    if name not in _trigram:
        with connection.cursor() as cursor:
            cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [TRIGRAM_INDEX])
            _trigram[name] = cursor.fetchone()[0]
    return _trigram[name]


def prefix_query(text: str) -> str:
    """The tsquery text for every word of `text` as a prefix: "lisb bu" -> "'lisb':* & 'bu':*"
    ("" when it has no word characters)."""
    return " & ".join(f"'{word}':*" for word in _WORD_RE.findall(text.lower()))


def containing(*, scopes: list[Scope], query: str) -> QuerySet:
    """The facts of these scopes whose text contains `query` (any case), by the fastest path
    this database offers (see the module doc)."""
    keys = [str(s) for s in scopes]
    return Fact.objects.filter(scope_key__in=keys).filter(*_text_filters(keys, query))


def newest_containing(
    *, scopes: list[Scope], query: str, window: int, include_hidden: bool
) -> Containing:
    """The `window` newest rows of these scopes whose text contains `query` (any case; hidden
    facts only with `include_hidden`) and how many facts contain it (see the module doc)."""
    keys = [str(s) for s in scopes]
    filters = _text_filters(keys, query)

    def matching(keys: list[str]) -> QuerySet:
        rows = Fact.objects.filter(scope_key__in=keys).filter(*filters)
        return rows if include_hidden else rows.exclude(visibility="hidden")

    # One arm per scope (see `_page`); past ARMS_MAX scopes (a workspace-wide search) planning
    # the arms would cost more than they save: one statement over all of them.
    groups = [[key] for key in keys] if len(keys) <= ARMS_MAX else [keys]
    page = _page([matching(group) for group in groups], window) if keys else []
    if len(page) < window:  # every match is on the page: nothing more to count
        return Containing(facts=page, matched=len({f.fact_id for f in page}), capped=False)
    sql, params = matching(keys).values("fact_id")[: COUNT_CAP + 1].query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(DISTINCT fact_id), count(*) FROM ({sql}) AS first", params)
        matched, read = cursor.fetchone()
    if read > COUNT_CAP:
        return Containing(facts=page, matched=min(matched, COUNT_CAP), capped=True)
    return Containing(facts=page, matched=matched, capped=False)


def _page(per_scope: list[QuerySet], window: int) -> list[StoredFact]:
    # One ordered arm per scope, merged: each arm can walk its scope's part of the index
    # `fact_scope_day_id` newest first and stop at `window`, which `scope_key IN (…)` cannot.
    # Tuples, not model instances: a third of the time for 240 rows.
    arms = [
        rows.annotate(file_path=F("file__path"))
        .order_by("-day", *RANK_ORDER_FIELDS, *_TIES)
        .values_list(*_STORED, "id")[:window]
        for rows in per_scope
    ]
    if len(arms) == 1:
        values = list(arms[0])
    else:
        merged = arms[0].union(*arms[1:], all=True)
        values = list(merged.order_by("-day", *_MERGED_ORDER, *_TIES)[:window])
    return [stored_from_values(row[:-1]) for row in values]


def _text_filters(keys: list[str], query: str) -> list[RawSQL]:
    # ILIKE, not Django's icontains (UPPER(text) LIKE UPPER(…): an upper-cased copy of every
    # text read, 2-4x the time, and no trigram index can serve it).
    pattern = "%" + _LIKE_SPECIAL.sub(r"\\\g<0>", query) + "%"
    like = RawSQL("text ILIKE %s", [pattern], output_field=BooleanField())
    prefixes = prefix_query(query)
    if trigram_ready() or not prefixes:
        return [like]
    # One table, one filter: the GIN index finds the candidates and ILIKE checks only those
    # (as a subquery joined back, the planner scanned every row with ILIKE first).
    prefixed = RawSQL(
        "search @@ to_tsquery('english', %s)", [prefixes], output_field=BooleanField()
    )
    if Fact.objects.filter(scope_key__in=keys).filter(like, prefixed).exists():
        return [like, prefixed]
    return [like]
