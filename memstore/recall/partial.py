"""Facts containing the query as typed, for recall's last resort (nothing matched by words or
meaning): a console keystroke on a partial word ("lisb") lands here on every key.

A plain `ILIKE '%lisb%'` reads every fact of the searched scopes (108 ms at 50,000). With
pg_trgm's trigram index on the text (`fact_text_trgm`; no migration makes it yet: an operator
creates it where the server offers pg_trgm, docs/benchmarks.md gives the SQL), that same
statement is answered from the index: the exact semantics, indexed. Without it, the words typed are first looked up as prefixes in the GIN index on the
search vector (`'lisb':*`), and only those candidates are checked with `ILIKE`; a fact where
the text appears inside a word ("isbon") is found by that path only when no fact has a word
starting with it (then the scan runs, as before). Which path a database offers is asked once
per process and connection alias.
"""

import re

from django.db import connection
from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL

from memstore.facts.paths import Scope
from memstore.models import Fact

TRIGRAM_INDEX = "fact_text_trgm"
_WORD_RE = re.compile(r"\w+")
_LIKE_SPECIAL = re.compile(r"[\\%_]")  # escaped with a backslash, LIKE's default escape
_trigram: dict[str, bool] = {}  # database name -> whether the trigram index exists


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
    # ILIKE, not Django's icontains (UPPER(text) LIKE UPPER(…): an upper-cased copy of every
    # text read, 2-4x the time, and no trigram index can serve it).
    pattern = "%" + _LIKE_SPECIAL.sub(r"\\\g<0>", query) + "%"
    rows = Fact.objects.filter(scope_key__in=[str(s) for s in scopes]).filter(
        RawSQL("text ILIKE %s", [pattern], output_field=BooleanField())
    )
    if trigram_ready():
        return rows
    prefixes = prefix_query(query)
    if not prefixes:
        return rows
    # One table, one filter: the GIN index finds the candidates and ILIKE checks only those
    # (as a subquery joined back, the planner scanned every row with ILIKE first).
    indexed = rows.filter(
        RawSQL("search @@ to_tsquery('english', %s)", [prefixes], output_field=BooleanField())
    )
    return indexed if indexed.exists() else rows
