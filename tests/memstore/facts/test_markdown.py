"""The fact-line grammar (SPEC §3.1): what is a fact, what is kept byte for byte, identities."""

import re
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstore.errors import InvalidFact
from memstore.facts import markdown
from memstore.facts.markdown import FactLine, Line, fact_identity, parse_line, parse_text, render

D = date(2026, 11, 29)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("- (2026-11-29) Likes tea", FactLine(D, "Likes tea")),
        ("- (2026-11-29) Likes tea\n", FactLine(D, "Likes tea")),
        ("- (2026-11-29) Likes tea\r\n", FactLine(D, "Likes tea")),
        ("- (2026-11-29) Likes tea   ", FactLine(D, "Likes tea")),
        ("- (2026-11-29)    Likes tea", FactLine(D, "Likes tea")),
        ("\ufeff- (2026-11-29) Likes tea\n", FactLine(D, "Likes tea")),
        ("- (2026-11-29) [note] Likes rooftops", FactLine(D, "[note] Likes rooftops")),
        ("- (2026-11-29) [episode] Planned it", FactLine(D, "[episode] Planned it")),
        ("- (2024-02-29) Leap day", FactLine(date(2024, 2, 29), "Leap day")),
        ("- (2026-11-29) Tab\tinside", FactLine(D, "Tab inside")),  # text normalised
        ("- (2026-11-29) Ünïcödé ✓ 日本", FactLine(D, "Ünïcödé ✓ 日本")),
        (
            "- (2026-11-29) Prefers dark mode <!-- type=preference importance=0.8 -->",
            FactLine(D, "Prefers dark mode", {"type": "preference", "importance": "0.8"}),
        ),
        (
            "- (2026-11-29) Kept <!-- src=room:42/msg:981 by=alice via=console -->",
            FactLine(D, "Kept", {"src": "room:42/msg:981", "by": "alice", "via": "console"}),
        ),
        (  # unknown keys are preserved
            "- (2026-11-29) Odd <!-- colour=teal x_y-z=1 -->",
            FactLine(D, "Odd", {"colour": "teal", "x_y-z": "1"}),
        ),
        (  # a comment that is not key=value pairs is part of the text
            "- (2026-11-29) Says <!-- hello -->",
            FactLine(D, "Says <!-- hello -->"),
        ),
        (  # a comment alone is the text, not metadata of an empty fact
            "- (2026-11-29) <!-- a=b -->",
            FactLine(D, "<!-- a=b -->"),
        ),
    ],
)
def test_fact_lines(raw, expected):
    assert expected == parse_line(raw)


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "\n",
        "# Memory",
        "Some prose about the bot.",
        "<!-- a comment -->",
        "- (2026-02-30) Not a real day",
        "- (2026-13-01) No 13th month",
        "- (2025-02-29) Not a leap year",
        "- (0000-01-01) Year zero",
        "- (26-11-29) Short year",
        "- (2026-1-29) Short month",
        "- (２０２６-11-29) Full-width digits",
        "- (٢٠٢٦-١١-٢٩) Arabic-Indic digits",
        "- (2026-11-29)",
        "- (2026-11-29) ",
        "- (2026-11-29)    ",
        "- (2026-11-29)Missing space",
        "-(2026-11-29) Missing space",
        "* (2026-11-29) Other bullet",
        "  - (2026-11-29) Indented",
        "- [2026-11-29] Square brackets",
        "- (2026-11-29) Has a NUL \x00 inside",
        "- (2026-11-29) Has a bell \x07",
        "- (2026-11-29) Lone CR \r inside",
        "- (2026-11-29) Form feed \x0c inside",
        "- (2026-11-29) NEL \x85 inside",
        "- (2026-11-29) Line separator \u2028 inside",
        "- (2026-11-29) \x1b[31mescape",
    ],
)
def test_not_fact_lines(raw):
    assert parse_line(raw) is None


@pytest.mark.parametrize(
    "content",
    [
        "",
        "\n",
        "# Memory\n\n- (2026-11-29) One\n",
        "- (2026-11-29) No trailing newline",
        "- (2026-11-29) CRLF\r\n- (2026-11-30) Two\r\n",
        "- (2026-11-29) Mixed\r\n- (2026-11-30) Two\n\r\n",
        "\ufeff# BOM first\n- (2026-11-29) One\n",
        "Prose\n  indented\n\t\ttabs\n- (2026-02-30) bad date\n- (2026-11-29) Good\n",
        "- (2026-11-29) Form feed\x0c- (2026-11-30) glued\n",
        "Old Mac\r- (2026-11-29) line\r",
        "\x00\x01 binary-ish \xff\n",
        "trailing spaces   \n\n\n",
    ],
)
def test_files_round_trip_byte_for_byte(content):
    lines = parse_text(content)
    assert content == render(lines)
    assert all(line.raw.count("\n") <= 1 for line in lines)


def test_only_newline_ends_a_line():
    lines = parse_text("- (2026-11-29) a\x0cb\u2028c\n- (2026-11-30) d")
    assert [x.raw for x in lines] == ["- (2026-11-29) a\x0cb\u2028c\n", "- (2026-11-30) d"]
    assert [None, FactLine(date(2026, 11, 30), "d")] == [x.fact for x in lines]


def test_rewriting_a_line_keeps_its_ending_and_its_neighbours():
    lines = parse_text("\ufeff- (2026-11-29) One\r\nprose\x0c\n- (2026-11-30) Two")
    new = FactLine(D, "Uno")
    assert (
        render(markdown.replace_fact(lines, 0, new))
        == "\ufeff- (2026-11-29) Uno\r\nprose\x0c\n- (2026-11-30) Two"
    )
    assert (
        render(markdown.replace_fact(lines, 2, new))
        == "\ufeff- (2026-11-29) One\r\nprose\x0c\n- (2026-11-29) Uno"
    )


def test_append_supplies_the_missing_newline_in_the_files_style():
    crlf = parse_text("# M\r\n- (2026-11-29) One")
    assert (
        render(markdown.append_fact(crlf, FactLine(D, "Two")))
        == "# M\r\n- (2026-11-29) One\r\n- (2026-11-29) Two\r\n"
    )
    assert render(markdown.append_fact([], FactLine(D, "Two"))) == "- (2026-11-29) Two\n"


def test_removing_the_first_line_keeps_the_bom():
    lines = parse_text("\ufeff- (2026-11-29) One\n- (2026-11-30) Two\n")
    assert render(markdown.remove_lines(lines, {0})) == "\ufeff- (2026-11-30) Two\n"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Likes tea", "likes tea"),
        ("Likes  tea", "LIKES tea"),
        ("  Likes\ttea ", "likes tea"),
        ("Likes\u00a0tea", "likes tea"),
        ("[note] Likes tea", "[NOTE]  likes tea"),
    ],
)
def test_identity_ignores_case_and_spacing(a, b):
    assert fact_identity(a) == fact_identity(b)


def test_identity_is_sha1_prefix_and_excludes_metadata():
    # sha1("likes tea")[:16], the same rule as the reference design.
    assert fact_identity("Likes tea") == "b0b78b71840803ed"
    with_meta = parse_line("- (2026-11-29) Likes tea <!-- importance=0.9 -->")
    assert with_meta.identity == "b0b78b71840803ed"
    assert fact_identity("Likes tea") != fact_identity("[note] Likes tea")


def test_tag_and_body():
    fact = FactLine(D, "[episode] Planned the offsite")
    assert (fact.tag, fact.body) == ("episode", "Planned the offsite")
    assert (FactLine(D, "[other] x").tag, FactLine(D, "[other] x").body) == (None, "[other] x")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("x" * 501, "501 characters; the limit is 500"),
        ("two\nlines", "line break"),
        ("two\r\nlines", "line break"),
        ("bell\x07", "control character (U+0007)"),
        ("nul\x00", "control character (U+0000)"),
        ("nel\x85", "control character (U+0085)"),
        ("sep\u2028x", "control character (U+2028)"),
        ("sneaky <!-- type=x -->", "reserved for metadata"),
        ("ends -->", "reserved for metadata"),
    ],
)
def test_clean_text_refuses_with_a_clear_message(text, message):
    with pytest.raises(InvalidFact, match=re.escape(message)):
        markdown.clean_text(text)


def test_clean_text_trims_and_allows_500():
    assert markdown.clean_text("  " + "x" * 500 + "  ") == "x" * 500
    assert markdown.clean_text("tab\tok") == "tab ok"


def test_make_fact_tags_and_limits():
    assert FactLine(D, "[note] Likes rooftops") == markdown.make_fact(
        text="Likes rooftops", day=D, tag="note"
    )
    assert FactLine(D, "[note] Already") == markdown.make_fact(
        text="[note] Already", day=D, tag="note"
    )
    with pytest.raises(InvalidFact, match="empty apart from its"):
        markdown.make_fact(text="[note]", day=D)
    with pytest.raises(InvalidFact, match="with its tag"):
        markdown.make_fact(text="x" * 499, day=D, tag="episode")
    with pytest.raises(InvalidFact, match="Tag must be"):
        markdown.make_fact(text="x", day=D, tag="pinned")


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({"bad key": "x"}, "Metadata key"),
        ({"k": "two words"}, "no spaces"),
        ({"k": "a--b"}, "no spaces"),
        ({"k": "<b>"}, "no spaces"),
        ({"k": "esc\x1b"}, "no spaces"),
        ({"k": "nul\x00"}, "no spaces"),
        ({"k": ""}, "1-200"),
        ({"importance": "1.5"}, "importance must be between 0 and 1"),
        ({"importance": "high"}, "importance must be a number"),
        ({"weight": 0}, "weight must be > 0"),
        ({"weight": "nan"}, "weight must be > 0"),
        ({"visibility": "secret"}, "visibility must be one of"),
    ],
)
def test_clean_meta_refuses(meta, message):
    with pytest.raises(InvalidFact, match=message):
        markdown.clean_meta(meta)


def test_clean_meta_formats_values():
    assert markdown.clean_meta({"pin": True, "importance": 0.8, "weight": 2}) == {
        "pin": "true",
        "importance": "0.8",
        "weight": "2",
    }


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("2026-11-29", True),
        ("2024-02-29", True),
        ("2026-02-30", False),
        ("2025-02-29", False),
        ("2026-11-29T00:00", False),
        ("20261129", False),
        ("２０２６-11-29", False),
        ("", False),
    ],
)
def test_parse_date(value, ok):
    if ok:
        assert date.fromisoformat(value) == markdown.parse_date(value)
    else:
        with pytest.raises(InvalidFact, match="Date"):
            markdown.parse_date(value)


# --- properties ---------------------------------------------------------------------------

_meta_keys = st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,31}", fullmatch=True)
_meta_values = st.from_regex(r"[^\s<>]{1,40}", fullmatch=True).filter(lambda v: "--" not in v)
_texts = st.text(min_size=1, max_size=500).filter(lambda t: _valid(lambda: markdown.clean_text(t)))


def _valid(check) -> bool:
    try:
        check()
    except InvalidFact:
        return False
    return True


@st.composite
def valid_facts(draw) -> FactLine:
    text = draw(_texts)
    tag = draw(st.sampled_from([None, "note", "episode"]))
    meta = draw(st.dictionaries(_meta_keys, _meta_values, max_size=4))
    day = draw(st.dates(min_value=date(1, 1, 1), max_value=date(9999, 12, 31)))
    try:
        return markdown.make_fact(text=text, day=day, tag=tag, meta=meta)
    except InvalidFact:
        return FactLine(day=day, text=markdown.clean_text(text))


@given(valid_facts(), st.sampled_from(["", "\n", "\r\n"]))
def test_every_valid_fact_round_trips(fact, ending):
    line = str(fact)
    assert "\n" not in line and "\r" not in line
    assert fact == parse_line(line + ending)
    assert [Line(raw=line + ending, fact=fact)] == parse_text(line + ending)


@given(st.text())
def test_any_text_survives_parse_and_render(content):
    assert content == render(parse_text(content))


_odd = st.text(
    alphabet=st.sampled_from(
        list("- ()0123456789<>!=abc[]notepisd\t\r\n\ufeff\x00\x0c\x85\u2028 é日")
    ),
    max_size=200,
)


@given(st.one_of(_odd, st.text(), st.builds(lambda f, t: str(f) + t, valid_facts(), _odd)))
def test_parser_never_crashes_and_keeps_every_byte(content):
    lines = parse_text(content)
    assert content == render(lines)
    for line in lines:
        if line.fact is not None:
            # A parsed fact renders to a line that parses back to the same fact.
            assert line.fact == parse_line(str(line.fact))
            assert not markdown._BAD_CHARS_RE.search(line.fact.text)


def test_hand_written_text_is_whitespace_normalised_and_the_line_kept():
    raw = "- (2026-03-01)   Likes \t green   tea  <!-- by=ann -->\n"
    [line] = parse_text(raw)
    assert (line.fact.text, line.fact.meta) == ("Likes green tea", {"by": "ann"})
    assert render([line]) == raw  # the file keeps what the person wrote


def test_saved_text_is_whitespace_normalised():
    fact = markdown.make_fact(text="  Prefers \t\t dark   mode ", day=date(2026, 3, 1), tag="note")
    assert str(fact) == "- (2026-03-01) [note] Prefers dark mode"


def test_a_metadata_comment_followed_by_blanks_still_reads_as_metadata():
    # Found by hypothesis: with the trailing blank the comment used to become part of the
    # text, and rendering that fact again gave a line that parsed differently.
    fact = parse_line("- (2000-01-01) 0<!-- A= --> ")
    assert (fact.text, fact.meta) == ("0", {"A": ""})
    assert fact == parse_line(str(fact))


@pytest.mark.parametrize(
    "day", [date(1, 1, 1), date(1899, 12, 31), date(9999, 12, 31), date(2028, 1, 1)]
)
def test_a_new_fact_dated_outside_the_sane_range_is_refused(day):
    with pytest.raises(InvalidFact, match="out of range: a fact's date must be between 1900-01-01"):
        markdown.day_check(day, today=date(2026, 12, 1))


@pytest.mark.parametrize("day", [date(1900, 1, 1), date(2026, 12, 1), date(2027, 12, 2)])
def test_a_new_fact_dated_inside_the_range_is_taken(day):
    assert markdown.day_check(day, today=date(2026, 12, 1)) == day


def test_a_hand_written_line_keeps_any_real_date():
    # Only writes are refused: a person's line from 1850 is still a fact.
    assert markdown.parse_line("- (1850-06-01) Old family story\n").day == date(1850, 6, 1)
