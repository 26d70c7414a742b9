"""`until=`, `review=`, `checked=` and `mark=` on a fact line: the grammar keeps them through a
round trip, refuses a bad value naming the key, the expiry rule reads the same in Python and in
SQL, and each feedback verb writes what it should."""

import json
import re
from datetime import date, timedelta

import pytest
from django.db import connection
from hypothesis import given
from hypothesis import strategies as st

from memstore.errors import InvalidFact
from memstore.facts import markdown
from memstore.facts.markdown import parse_line
from memstore.facts.ranking import verified_bonus
from memstore.facts.validity import (
    checked_of,
    expired_sql,
    feedback_meta,
    is_expired,
    is_review_due,
    mark_of,
    may_expire_sql,
    review_of,
    until_of,
)

_days = st.dates(min_value=date(1900, 1, 1), max_value=date(9999, 12, 31))
_fact_days = st.dates(min_value=date(1900, 1, 1), max_value=date.today())
_texts = st.from_regex(r"[A-Za-z][A-Za-z ,.'é]{0,60}[a-z]", fullmatch=True)


@given(_texts, _fact_days, st.one_of(st.none(), _days), st.one_of(st.none(), _days), _days)
def test_until_and_review_round_trip_and_decide_expiry(text, day, until, review, today):
    meta = {k: v for k, v in (("until", until), ("review", review)) if v is not None}
    fact = markdown.make_fact(text=text, day=day, meta=meta)
    again = parse_line(str(fact) + "\n")
    assert again == fact
    assert until_of(again.meta) == (until.isoformat() if until else None)
    assert review_of(again.meta) == (review.isoformat() if review else None)
    assert is_expired(again.meta, today) == (until is not None and until < today)
    assert is_review_due(again.meta, today) == (review is not None and review <= today)


_not_dates = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cc", "Zs", "Zl", "Zp", "Cs"), blacklist_characters="<>"
    ),
    min_size=1,
    max_size=20,
).filter(lambda v: "--" not in v and not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", v))


@given(st.sampled_from(["until", "review"]), _not_dates)
def test_a_value_that_is_not_a_date_is_refused_naming_the_key(key, value):
    with pytest.raises(InvalidFact) as refused:
        markdown.clean_meta({key: value})
    assert refused.value.message.startswith(key)


@pytest.mark.parametrize("value", ["2026-02-30", "2026-13-01", "0999-01-01"])
def test_an_unreal_or_ancient_date_is_refused(value):
    with pytest.raises(InvalidFact, match="^until="):
        markdown.clean_meta({"until": value})


TODAY = date(2026, 12, 1)
VALUES = [
    "2026-11-30",  # yesterday: expired
    "2026-12-01",  # today: still true
    "2026-12-02",
    "1999-01-01",
    "2026-02-30",  # hand-written, not a real day: compared as written, as in Python
    "friday",
    "1",
    "",
    "2026-11-30T10:00",
    None,
]


@pytest.mark.django_db
@pytest.mark.parametrize("value", VALUES)
def test_sql_and_python_agree_on_expiry(value):
    meta = {} if value is None else {"until": value}
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {expired_sql('f')} FROM (SELECT %s::jsonb AS meta) f",
            [TODAY.isoformat(), json.dumps(meta)],
        )
        in_sql = cursor.fetchone()[0]
    assert bool(in_sql) == is_expired(meta, TODAY)
    assert is_expired(meta, TODAY) == (value in ("2026-11-30", "1999-01-01", "2026-02-30"))


def test_the_until_day_itself_is_still_true():
    assert not is_expired({"until": "2026-12-01"}, TODAY)
    assert is_expired({"until": "2026-12-01"}, TODAY + timedelta(days=1))


# --- checked= and mark= (feedback) ---------------------------------------------------------

_marks = st.one_of(st.none(), st.sampled_from(["outdated", "wrong", "do-not-use"]))


@given(_texts, _fact_days, st.one_of(st.none(), _days), _marks, _days)
def test_checked_and_mark_round_trip_and_decide_expiry(text, day, checked, mark, today):
    meta = {k: v for k, v in (("checked", checked), ("mark", mark)) if v is not None}
    fact = markdown.make_fact(text=text, day=day, meta=meta)
    line = str(fact)
    again = parse_line(line + "\n")
    assert again == fact and str(again) == line
    assert checked_of(again.meta) == (checked.isoformat() if checked else None)
    assert mark_of(again.meta) == mark
    assert is_expired(again.meta, today) == (mark in ("wrong", "do-not-use"))


@given(_not_dates)
def test_a_checked_value_that_is_not_a_date_is_refused(value):
    with pytest.raises(InvalidFact) as refused:
        markdown.clean_meta({"checked": value})
    assert refused.value.message.startswith("checked")


@pytest.mark.parametrize("value", ["bad", "WRONG", "useful", "do_not_use"])
def test_an_unknown_mark_is_refused_naming_the_choices(value):
    with pytest.raises(InvalidFact, match="mark must be one of outdated, wrong, do-not-use"):
        markdown.clean_meta({"mark": value})


@pytest.mark.django_db
@pytest.mark.parametrize("mark", ["outdated", "wrong", "do-not-use", "bad", None])
@pytest.mark.parametrize("until", ["2026-11-30", "2026-12-02", None])
def test_sql_and_python_agree_on_marks(mark, until):
    meta = {k: v for k, v in (("mark", mark), ("until", until)) if v is not None}
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {expired_sql('f')}, {may_expire_sql('f')} FROM (SELECT %s::jsonb AS meta) f",
            [TODAY.isoformat(), json.dumps(meta)],
        )
        in_sql, may = cursor.fetchone()
    assert bool(in_sql) == is_expired(meta, TODAY)
    assert bool(may) == bool(meta)
    assert is_expired(meta, TODAY) == (mark in ("wrong", "do-not-use") or until == "2026-11-30")


TODAY_ISO = TODAY.isoformat()


@pytest.mark.parametrize(
    ("verb", "meta", "written"),
    [
        ("useful", {}, {"checked": TODAY_ISO}),
        ("useful", {"mark": "outdated"}, {"checked": TODAY_ISO, "mark": None}),
        ("useful", {"mark": "wrong"}, {}),  # only a person lifts it
        ("outdated", {}, {"mark": "outdated", "review": TODAY_ISO}),
        ("wrong", {"checked": "2026-01-01"}, {"mark": "wrong", "review": TODAY_ISO}),
        ("do-not-use", {}, {"mark": "do-not-use", "review": TODAY_ISO}),
        ("confirm", {"mark": "wrong"}, {"checked": TODAY_ISO, "mark": None, "review": None}),
    ],
)
def test_what_each_feedback_writes(verb, meta, written):
    assert written == feedback_meta(verb, meta, TODAY)


def test_a_verified_fact_ranks_up_to_a_month_higher():
    day = date(2026, 1, 1)
    assert verified_bonus(day=day, meta={}) == 0
    assert verified_bonus(day=day, meta={"checked": "2026-01-16"}) == 0.5
    assert verified_bonus(day=day, meta={"checked": "2026-12-01"}) == 1.0
    assert verified_bonus(day=day, meta={"checked": "2025-12-01"}) == 0  # before it was written
    assert verified_bonus(day=day, meta={"checked": "2026-02-30"}) == 0  # no such day
