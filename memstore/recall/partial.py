"""Facts containing the query as typed, for recall's last resort (nothing matched by words or
meaning): a console keystroke on a partial word ("lisb") lands here on every key.

What is shown is a page of the newest matches and how many there are; `newest_containing`
reads both in one statement (a keystroke's round trip and planning once) whose parts stop
early:

- the page: `ORDER BY day DESC, …` with a LIMIT, one ordered arm per scope merged by
  `UNION ALL` (up to ARMS_MAX scopes), so that Postgres can serve each arm by walking its
  scope's part of the index `fact_scope_day_id` newest first, checking each row's text until
  the page is full (a common text fills it after a few hundred rows), or, for a rare text,
  from the matches the trigram index finds, then sorted (the planner picks by the text's
  estimated share);
- the count, only when the page is full (a `CASE` whose subquery runs only then): distinct
  facts among the first `COUNT_CAP + 1` matching rows in any order, so it stops there too;
  past the cap the console says "1000+" (as the bot page's count does).

The statement is written here, not composed by the ORM: composing the arms, their union and
the count cost a keystroke more Python time than Postgres took to run them.

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
from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL

from memstore.facts.paths import Scope
from memstore.facts.records import StoredFact, stored_from_values
from memstore.models import Fact

TRIGRAM_INDEX = "fact_text_trgm"
COUNT_CAP = 1000  # distinct matches counted; more are shown as "1000+"
ARMS_MAX = 24  # scopes read as one ordered arm each (see `_page_and_count`)
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
# The page's order: newest first, then recall's rank order (`RANK_ORDER_FIELDS`: rank, day,
# file, position, id), then ties broken by place; in an arm (the fact and its file), and over
# the merged arms, which can only name the columns they select.
_PAGE_COLUMNS = ", ".join(
    "m.path AS file_path" if c == "file_path" else f"f.{c}" for c in (*_STORED, "id")
)
_ARM_ORDER = (
    "f.day DESC, f.rank DESC, m.path DESC, f.position DESC, f.fact_id,"
    " f.scope_key, f.shard_bot, f.id"
)
_MERGED_ORDER = (
    "day DESC, rank DESC, file_path DESC, position DESC, fact_id, scope_key, shard_bot, id"
)
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
    if not keys:
        return Containing(facts=[], matched=0, capped=False)
    filters = _text_filters(keys, query)
    where = " AND ".join(f"({f.sql})" for f in filters)
    if not include_hidden:
        where += " AND f.visibility <> 'hidden'"
    sql, params = _page_and_count(keys, where, [p for f in filters for p in f.params], window)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchall()
    page = [stored_from_values(row[: len(_STORED)]) for row in found]
    if len(page) < window:  # every match is on the page: nothing more to count
        return Containing(facts=page, matched=len({f.fact_id for f in page}), capped=False)
    matched, read = found[0][-1]
    if read > COUNT_CAP:
        return Containing(facts=page, matched=min(matched, COUNT_CAP), capped=True)
    return Containing(facts=page, matched=matched, capped=False)


def _page_and_count(
    keys: list[str], where: str, where_params: list, window: int
) -> tuple[str, list]:
    # The page: one ordered arm per scope, merged: each arm can walk its scope's part of the
    # index `fact_scope_day_id` newest first and stop at `window`, which `scope_key IN (…)`
    # cannot; past ARMS_MAX scopes (a workspace-wide search) planning the arms would cost more
    # than they save: one arm over all of them. Each row also carries the count, an array
    # (distinct facts, rows read) computed once and only when the page is full.
    groups = [[key] for key in keys] if len(keys) <= ARMS_MAX else [keys]
    arms, params = [], []
    for group in groups:
        scope = "f.scope_key = %s" if len(group) == 1 else "f.scope_key = ANY(%s)"
        arms.append(
            f"(SELECT {_PAGE_COLUMNS} FROM memstore_fact f"
            f" JOIN memstore_memoryfile m ON m.id = f.file_id"
            f" WHERE {scope} AND {where} ORDER BY {_ARM_ORDER} LIMIT %s)"
        )
        params += [group[0] if len(group) == 1 else group, *where_params, window]
    count = (
        "SELECT ARRAY[count(DISTINCT fact_id), count(*)] FROM (SELECT f.fact_id"
        f" FROM memstore_fact f WHERE f.scope_key = ANY(%s) AND {where} LIMIT %s) AS first"
    )
    sql = (
        f"WITH page AS MATERIALIZED (SELECT * FROM ({' UNION ALL '.join(arms)}) AS arms"
        f" ORDER BY {_MERGED_ORDER} LIMIT %s)"
        " SELECT page.*, CASE WHEN (SELECT count(*) FROM page) >= %s"
        f" THEN ({count}) END FROM page ORDER BY {_MERGED_ORDER}"
    )
    return sql, [*params, window, window, keys, *where_params, COUNT_CAP + 1]


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
