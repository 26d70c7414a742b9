"""The console's wording, decided in one place (pure functions, no database)."""

import pytest

from memoryconsole.web.presenters import common, facts
from memstore.console.facts import FactQuery, FactRows
from memstore.console.writes import ClearPreview


def rows(total: int, *, capped: bool = False, shown: int = 0, more: bool = False) -> FactRows:
    return FactRows(
        rows=[None] * shown,
        total=total,
        capped=capped,
        next_cursor="2026-01-01_1" if more else "",
    )


@pytest.mark.parametrize(
    ("page", "query", "expected"),
    [
        (rows(0), FactQuery(), "0 facts"),
        (rows(1), FactQuery(), "1 fact"),
        (rows(1000, capped=True), FactQuery(), "1000+ facts"),
        (rows(123, shown=50, more=True), FactQuery(), "1–50 of 123 facts"),
        (
            rows(123, shown=50, more=True),
            FactQuery(cursor="2026-01-01_9", start=51),
            "51–100 of 123 facts",
        ),
        (rows(123, shown=23), FactQuery(cursor="2026-01-01_9", start=101), "101–123 of 123 facts"),
    ],
)
def test_fact_list_summary(page, query, expected):
    assert facts.fact_list_summary(page, query) == expected


@pytest.mark.parametrize(
    ("key", "label"),
    [
        ("bot:ava", "own"),
        ("user:sam", "about sam"),
        ("project:launch", "project launch"),
        ("room:general", "room general"),
    ],
)
def test_scope_label(key, label):
    assert common.scope_label(key) == label


def test_origin_and_error_titles():
    assert [common.origin("ann", "console"), common.origin("", "api")] == [
        "by ann via console",
        "via api",
    ]
    assert common.origin("", "") == ""
    assert [
        common.error_title("forbidden", 403),
        common.error_title("not_found", 404),
        common.error_title("bot_not_found", 404),
        common.error_title("conflict", 409),
        common.error_title("secret_refused", 422),
    ] == ["Not allowed", "Not found", "Not found", "Changed meanwhile", "Not accepted"]


@pytest.mark.parametrize(
    ("projects", "rooms", "expected"),
    [
        (0, 0, "1 fact about people and its project memory"),
        (2, 0, "1 fact about people, 2 in its projects"),
        (2, 1, "1 fact about people, 2 in its projects, and 1 in legacy rooms"),
    ],
)
def test_what_clearing_leaves(projects, rooms, expected):
    preview = ClearPreview(bot="ava", own=3, people=1, projects=projects, rooms=rooms)
    pieces = facts.clear_stays(preview)
    assert "".join(lead + n + words for lead, n, words in pieces) == expected


@pytest.mark.parametrize(
    ("text", "searched", "literal", "expected"),
    [
        ("Old memories", "memory", False, (("Old ", False), ("memories", True))),
        ("Budgets: Q3", "budget q3", False, (("Budgets", True), (": ", False), ("Q3", True))),
        ("a <b> c", "<b>", True, (("a ", False), ("<b>", True), (" c", False))),
        ("nothing here", "lisbon", False, (("nothing here", False),)),
    ],
)
def test_search_marks(text, searched, literal, expected):
    from memoryconsole.web.presenters.search import search_marks

    assert search_marks(searched, literal).split(text) == expected
