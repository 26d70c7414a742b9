"""Recall's last resort on partial words (memstore/recall/partial.py): pg_trgm's index finds
exactly what the plain ILIKE scan finds, whatever is typed; without the index a word being
typed is found through the search vector by its start and the text inside a word still by the
scan; the page is the newest matches across scopes, and the count stops at COUNT_CAP."""

import importlib

import pytest
from django.db import IntegrityError, connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstore.facts.paths import Scope
from memstore.index import index_sync
from memstore.index.rebuild import index_rebuild
from memstore.recall import partial, recall_in_scopes
from tests.helpers import log

pytestmark = pytest.mark.django_db

ADA = Scope("bot", "ada")
FACTS = [
    "- (2026-11-01) Flight to Lisbon on Friday",
    "- (2026-11-02) Budget review with finance",
    "- (2026-11-03) Lisbon hotel near the river",
    "- (2026-11-04) Prefers window seats",
]


@pytest.fixture
def memory(memory_root):
    log(memory_root, "bot", "ada", "2026-11", *FACTS)
    return memory_root


def found(query: str) -> list[str]:
    result = recall_in_scopes(scopes=[ADA], query=query, mode="lexical", include_hidden=True)
    return [f.text for f in result.items]


def test_a_partial_word_finds_the_facts_with_a_word_starting_so(memory):
    assert found("lisb") == ["Lisbon hotel near the river", "Flight to Lisbon on Friday"]
    assert found("LISBO") == ["Lisbon hotel near the river", "Flight to Lisbon on Friday"]
    assert found("budg rev") == []  # the words as typed, together: no fact holds "budg rev"
    assert found("budget rev") == ["Budget review with finance"]


def test_text_inside_a_word_is_still_found_by_the_scan(memory):
    assert found("isbo") == ["Lisbon hotel near the river", "Flight to Lisbon on Friday"]
    assert found("xq") == []


@pytest.fixture
def without_trigram_index(monkeypatch):
    """This database as a server without pg_trgm's index would run it (the DROP is rolled back
    with the test's transaction)."""
    with connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX IF EXISTS {partial.TRIGRAM_INDEX}")
    monkeypatch.setattr(partial, "_trigram", {})
    yield
    partial._trigram.clear()


def test_the_migration_made_the_trigram_index_where_pg_trgm_is_offered():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'")
        offered = cursor.fetchone() is not None
    assert partial.trigram_ready() == offered


def test_without_the_trigram_index_the_prefix_path_is_used(memory, without_trigram_index):
    found("lisb")  # indexes the file
    rows = partial.containing(scopes=[ADA], query="lisb")
    assert "to_tsquery" in str(rows.query)
    assert found("lisb") == ["Lisbon hotel near the river", "Flight to Lisbon on Friday"]
    assert found("isbo") == ["Lisbon hotel near the river", "Flight to Lisbon on Friday"]


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=40))
def test_any_typed_text_makes_a_valid_prefix_query(text):
    prefixes = partial.prefix_query(text)
    if prefixes:
        with connection.cursor() as cursor:  # a syntax error would raise here
            cursor.execute("SELECT to_tsquery('english', %s)::text", [prefixes])
            cursor.fetchone()


SPECIAL = [
    "- (2026-11-05) 50% off with code A_B",
    "- (2026-11-06) Path C:\\temp\\x",
    "- (2026-11-07) 5000 off",
]


@pytest.fixture
def special(memory_root):
    log(memory_root, "bot", "ada", "2026-11", *FACTS, *SPECIAL)
    found("warm")  # indexes the file
    return [line.split(") ", 1)[1] for line in FACTS + SPECIAL]


# the fixture's files and rows are read-only here, so sharing them across examples is fine
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(alphabet="0%5_\\ABoflt :", min_size=1, max_size=4))
def test_like_wildcards_typed_are_matched_as_written(special, query):
    got = {f.text for f in partial.containing(scopes=[ADA], query=query)}
    holding = {t for t in special if query.lower() in t.lower()}
    assert got == holding  # % _ \ literal, as typed


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(alphabet="0%5_\\ABoflt :", min_size=1, max_size=4))
def test_without_the_index_some_facts_holding_the_text_are_given(
    special, without_trigram_index, query
):
    got = {f.text for f in partial.containing(scopes=[ADA], query=query)}
    holding = {t for t in special if query.lower() in t.lower()}
    # every fact given holds the text as typed (% _ \ literal), and some are given if any
    # holds it (those with a word starting so, when there are such: see the module doc)
    assert got <= holding and bool(got) == bool(holding)


# Texts whose case folds oddly: dotted and dotless i, sharp s, final sigma, a ligature, a
# combining accent beside a precomposed one, full-width letters, an emoji, and LIKE's escapes.
ODD = "aİıIißẞσςΣﬁé\u0301eÅåＡａ😀%_\\ "
ODD_FACTS = [
    "İstanbul trip in ıspanak season",
    "Straße and STRASSE and ẞ",
    "ΣΟΦΟΣ σοφός final ς",
    "ﬁle the ﬁnance ﬁgures",
    "café vs cafe\u0301 vs CAFÉ",
    "Ａｂｃ full width ａｂｃ",
    "emoji 😀 in a fact",
    "50% of a_b at C:\\x",
]


@pytest.fixture
def odd(memory_root):
    log(memory_root, "bot", "ada", "2026-11", *(f"- (2026-11-01) {t}" for t in ODD_FACTS))
    found("warm")  # indexes the file
    return memory_root


def _scanned(query: str) -> set[str]:
    """What the plain ILIKE scan finds, the index ruled out (the statement as before)."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_indexscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        try:
            return {f.text for f in partial.containing(scopes=[ADA], query=query)}
        finally:
            cursor.execute("RESET enable_indexscan")
            cursor.execute("RESET enable_bitmapscan")


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(alphabet=ODD + "abcdefghnoprstuwCFS", min_size=1, max_size=6))
def test_the_trigram_index_finds_exactly_what_the_scan_finds(odd, query):
    with connection.cursor() as cursor:  # the index is used, not a scan, even on 8 rows
        cursor.execute("SET LOCAL enable_seqscan = off")
        try:
            indexed = {f.text for f in partial.containing(scopes=[ADA], query=query)}
        finally:
            cursor.execute("RESET enable_seqscan")
    assert indexed == _scanned(query)


def test_odd_unicode_is_found_as_postgres_folds_case(odd):
    def contain(query: str) -> set[str]:
        return {f.text for f in partial.containing(scopes=[ADA], query=query)}

    assert contain("ΣΟΦ") == {"ΣΟΦΟΣ σοφός final ς"}
    assert contain("ﬁnance") == {"ﬁle the ﬁnance ﬁgures"}
    assert contain("finance") == set()  # a ligature is not its letters
    assert contain("é") == {"café vs cafe\u0301 vs CAFÉ"}
    assert contain("ａｂｃ") == {"Ａｂｃ full width ａｂｃ"}
    assert contain("😀 in") == {"emoji 😀 in a fact"}
    assert contain("_b at c:\\") == {"50% of a_b at C:\\x"}


def test_the_page_is_the_newest_across_scopes_and_the_count_stops_at_the_cap(
    memory_root, monkeypatch
):
    team = Scope("project", "team")
    log(
        memory_root,
        "bot",
        "ada",
        "2026-10",
        *(f"- (2026-10-{d:02d}) ada note {d}" for d in range(1, 29)),
    )
    log(
        memory_root,
        "project",
        "team",
        "2026-10",
        *(f"- (2026-10-{d:02d}) team note {d}" for d in range(1, 29)),
    )
    index_sync(scopes=[ADA, team])
    result = partial.newest_containing(
        scopes=[ADA, team], query="NOTE", window=10, include_hidden=False
    )
    days = [f.day.day for f in result.facts]
    assert days == [28, 28, 27, 27, 26, 26, 25, 25, 24, 24]
    assert {f.scope for f in result.facts} == {"bot:ada", "project:team"}
    assert (result.matched, result.capped) == (56, False)
    monkeypatch.setattr(partial, "COUNT_CAP", 20)
    capped = partial.newest_containing(
        scopes=[ADA, team], query="note", window=10, include_hidden=False
    )
    assert (capped.matched, capped.capped) == (20, True)
    few = partial.newest_containing(
        scopes=[ADA, team], query="note 1", window=30, include_hidden=False
    )
    assert (len(few.facts), few.matched, few.capped) == (22, 22, False)  # notes 1 and 10-19 of each


def test_past_arms_max_scopes_one_statement_gives_the_same_page(memory_root, monkeypatch):
    team = Scope("project", "team")
    log(
        memory_root,
        "bot",
        "ada",
        "2026-10",
        *(f"- (2026-10-{d:02d}) ada note {d}" for d in range(1, 29)),
    )
    log(
        memory_root,
        "project",
        "team",
        "2026-10",
        *(f"- (2026-10-{d:02d}) team note {d}" for d in range(1, 29)),
    )
    index_sync(scopes=[ADA, team])

    def page() -> list[tuple]:
        found = partial.newest_containing(
            scopes=[ADA, team], query="note", window=12, include_hidden=False
        )
        return [(f.day, f.scope, f.fact_id, f.file) for f in found.facts]

    per_scope = page()
    monkeypatch.setattr(partial, "ARMS_MAX", 1)
    assert page() == per_scope


def test_where_pg_trgm_may_not_be_installed_the_migration_leaves_the_fallback(
    memory, without_trigram_index
):
    """A `DATABASE_URL` role without the right to create extensions: the migration makes no
    index, says nothing, and partial words are still found (all rolled back with the test)."""
    migration = importlib.import_module("memstore.migrations.0021_fact_text_trgm")
    with connection.cursor() as cursor:
        cursor.execute("DROP EXTENSION pg_trgm")
        cursor.execute("CREATE ROLE memstore_test_no_extensions NOLOGIN")
        cursor.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO memstore_test_no_extensions")
        cursor.execute("SET LOCAL ROLE memstore_test_no_extensions")
        try:
            with connection.schema_editor(atomic=False) as editor:
                migration.create_trigram_index(None, editor)
        finally:
            cursor.execute("RESET ROLE")
        cursor.execute("SELECT to_regclass(%s), to_regtype('gtrgm')", [partial.TRIGRAM_INDEX])
        assert cursor.fetchone() == (None, None)
    assert partial.trigram_ready() is False
    assert found("isbo") == ["Lisbon hotel near the river", "Flight to Lisbon on Friday"]


def _trigram_index_valid() -> bool | None:
    """Whether the trigram index is there and usable (None: not there)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass(%s)",
            [partial.TRIGRAM_INDEX],
        )
        row = cursor.fetchone()
    return row[0] if row else None


@pytest.mark.django_db(transaction=True)
def test_a_rebuild_makes_the_trigram_index_again_after_its_commit(memory):
    # Outside any transaction, as `manage.py reindex` runs: built concurrently after the
    # rebuild's commit, and usable once the rebuild returns.
    assert _trigram_index_valid() is True
    index_rebuild()
    assert _trigram_index_valid() is True
    assert found("isbo") == ["Lisbon hotel near the river", "Flight to Lisbon on Friday"]


def test_a_rebuild_inside_a_transaction_makes_it_there(memory):
    index_rebuild()  # in the test's transaction: CONCURRENTLY is not allowed there
    assert _trigram_index_valid() is True
    assert found("lisb") == ["Lisbon hotel near the river", "Flight to Lisbon on Friday"]


def test_one_statement_gives_the_page_in_recall_order_and_the_count(memory_root):
    """The page and its count come in one statement, the page in the order the ORM's
    `-day` + `RANK_ORDER_FIELDS` gives (several facts a day, in two files and two tiers), a
    hidden fact left out unless asked for."""
    from django.test.utils import CaptureQueriesContext

    from memstore.facts.ranking import RANK_ORDER_FIELDS

    lines = [f"- (2026-10-{1 + d % 3:02d}) a trip note {d}" for d in range(12)]
    log(
        memory_root,
        "bot",
        "ada",
        "2026-10",
        *lines,
        "- (2026-10-02) a hidden trip <!-- visibility=hidden -->",
    )
    profile = memory_root / "agents" / "ada" / "memory" / "profile.md"
    profile.write_text(
        "# Memory\n\n"
        + "".join(
            f"- (2026-10-{1 + d % 3:02d}) [note] a long trip {d} <!-- tier=long -->\n"
            for d in range(6)
        ),
        encoding="utf-8",
    )
    index_sync(scopes=[ADA])
    partial.trigram_ready()  # asked once per process: not counted below
    expected = [
        (f.fact_id, f.file.path)
        for f in partial.containing(scopes=[ADA], query="TRIP")
        .exclude(visibility="hidden")
        .select_related("file")
        .order_by("-day", *RANK_ORDER_FIELDS, "scope_key", "shard_bot", "id")
    ]
    with CaptureQueriesContext(connection) as queries:
        full = partial.newest_containing(scopes=[ADA], query="TRIP", window=5, include_hidden=False)
    assert len(queries) == 1
    assert [(f.fact_id, f.file) for f in full.facts] == expected[:5]
    assert (full.matched, full.capped) == (18, False)
    every = partial.newest_containing(scopes=[ADA], query="trip", window=50, include_hidden=True)
    assert len(every.facts) == every.matched == 19


def _trigram_index_definition() -> str | None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = %s", [partial.TRIGRAM_INDEX]
        )
        row = cursor.fetchone()
    return row[0] if row else None


@pytest.mark.django_db(transaction=True)
def test_migrate_builds_the_trigram_index_concurrently_and_the_same(memory):
    """As `manage.py migrate` runs it (no transaction): built CONCURRENTLY, so saves go on
    meanwhile, and the very index the plain build made; a build that failed half-way (an
    invalid index of that name) is dropped and made again."""
    from django.test.utils import CaptureQueriesContext

    migration = importlib.import_module("memstore.migrations.0021_fact_text_trgm")
    assert migration.Migration.atomic is False
    made = _trigram_index_definition()
    if made is None:
        pytest.skip("this server offers no pg_trgm")
    assert found("isbo")  # the facts indexed: rows a unique index on a constant fails over
    with connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX {partial.TRIGRAM_INDEX}")
        # What a failed concurrent build leaves: an invalid index under the name.
        with pytest.raises(IntegrityError):
            cursor.execute(
                f"CREATE UNIQUE INDEX CONCURRENTLY {partial.TRIGRAM_INDEX} ON memstore_fact ((1))"
            )
    assert _trigram_index_valid() is False
    with (
        CaptureQueriesContext(connection) as statements,
        connection.schema_editor(atomic=False) as editor,
    ):
        migration.create_trigram_index(None, editor)
    built = [s["sql"] for s in statements if "CREATE INDEX" in s["sql"]]
    assert len(built) == 1 and "CREATE INDEX CONCURRENTLY" in built[0], built
    assert (_trigram_index_valid(), _trigram_index_definition()) == (True, made)
    assert found("isbo") == ["Lisbon hotel near the river", "Flight to Lisbon on Friday"]
