import pytest

from memstore.facts.markdown import fact_identity
from memstore.learning.parse import (
    MAX_REMOVES,
    MAX_SAVES,
    EpisodeReply,
    Proposal,
    Refusal,
    episode_parse,
    reply_parse,
)

KNOWN_TEXT = "Lives in Austin"
KNOWN = {fact_identity(KNOWN_TEXT): fact_identity(KNOWN_TEXT)}


def test_every_line_kind():
    reply = (
        "profile: Prefers dark mode\n"
        "log: Booked a rooftop venue in Lisbon\n"
        "note: Likes rooftop venues\n"
        "remove: Lives in Austin\n"
    )
    result = reply_parse(reply, known=KNOWN)
    assert result.proposals == [
        Proposal("profile", "Prefers dark mode"),
        Proposal("log", "Booked a rooftop venue in Lisbon"),
        Proposal("note", "Likes rooftop venues"),
        Proposal("remove", "Lives in Austin", fact_id=fact_identity(KNOWN_TEXT)),
    ]
    assert (result.ignored, result.refused) == (0, [])


def test_none_means_nothing():
    result = reply_parse("NONE", known=KNOWN)
    assert (result.proposals, result.ignored, result.said_none) == ([], 0, True)


def test_junk_is_ignored_and_counted():
    reply = (
        "Sure! Here is what I found:\n"
        "- profile: Prefers dark mode\n"  # bullets are not the format
        '{"profile": "Prefers tea"}\n'
        "Profile - Prefers coffee\n"
        "profile: Prefers green tea\n"
    )
    result = reply_parse(reply, known=KNOWN)
    assert result.proposals == [Proposal("profile", "Prefers green tea")]
    assert result.ignored == 4
    assert result.ignored_sample == [
        "Sure! Here is what I found:",
        "- profile: Prefers dark mode",
        '{"profile": "Prefers tea"}',
    ]


def test_keywords_are_case_insensitive_and_spacing_tolerant():
    result = reply_parse("PROFILE :  Prefers dark mode  ", known={})
    assert result.proposals == [Proposal("profile", "Prefers dark mode")]


def test_a_remove_must_quote_a_known_fact_exactly():
    reply = (
        "remove: lives in   AUSTIN\n"  # case and spacing aside, the same text
        "remove: Lives in Austin, Texas\n"  # not what the list says
        "remove: every fact\n"
    )
    result = reply_parse(reply, known=KNOWN)
    assert result.proposals == [
        Proposal("remove", "lives in   AUSTIN", fact_id=fact_identity(KNOWN_TEXT))
    ]
    assert result.refused == [
        Refusal("remove", "Lives in Austin, Texas", "not_known"),
        Refusal("remove", "every fact", "not_known"),
    ]


def test_a_quoted_remove_is_unquoted():
    result = reply_parse('remove: "Lives in Austin"', known=KNOWN)
    assert [p.fact_id for p in result.proposals] == [fact_identity(KNOWN_TEXT)]


def test_over_long_and_empty_facts_are_refused_not_cut():
    long = "x" * 501
    result = reply_parse(f"log: {long}\nprofile:   \nnote: {'y' * 500}", known={})
    assert result.proposals == [Proposal("note", "y" * 500)]
    assert result.refused == [Refusal("log", long, "too_long"), Refusal("profile", "", "empty")]


def test_a_reply_cannot_choose_another_bot_or_scope():
    reply = (
        "user:bob profile: Bob is an admin\n"
        "bot:other log: Other bot learned this\n"
        "profile(scope=project:x): Secret plan\n"
        "scope: user\n"
        "write: agents/other/memory/profile.md\n"
    )
    result = reply_parse(reply, known=KNOWN)
    assert (result.proposals, result.ignored) == ([], 5)


def test_tags_are_the_learners_choice_not_the_models():
    result = reply_parse("log: [episode] Shipped the release\nnote: [note] Likes tea", known={})
    assert result.proposals == [
        Proposal("log", "Shipped the release"),
        Proposal("note", "Likes tea"),
    ]


def test_duplicates_in_one_reply_count_once():
    result = reply_parse("log: Likes tea\nlog: likes  TEA\nprofile: Likes tea", known={})
    assert result.proposals == [Proposal("log", "Likes tea")]


def test_saves_and_removes_are_capped_per_reply():
    known = {fact_identity(f"fact {i}"): fact_identity(f"fact {i}") for i in range(10)}
    reply = "\n".join(f"remove: fact {i}" for i in range(10))
    reply += "\n" + "\n".join(f"log: new fact {i}" for i in range(20))
    result = reply_parse(reply, known=known)
    kinds = [p.kind for p in result.proposals]
    assert kinds.count("remove") == MAX_REMOVES
    assert kinds.count("log") == MAX_SAVES
    assert {r.reason for r in result.refused} == {"limit"}
    assert len(result.refused) == (10 - MAX_REMOVES) + (20 - MAX_SAVES)


@pytest.mark.parametrize(
    "reply", ["profile: NONE", "log: none", "note: None.", "profile: (none)", "LOG: NONE\nNONE"]
)
def test_a_keyword_with_none_is_a_no_op_never_a_fact(reply):
    result = reply_parse(reply, known={})
    assert (result.proposals, result.refused, result.ignored, result.said_none) == (
        [],
        [],
        0,
        True,
    )


def test_a_fact_that_merely_mentions_none_is_kept():
    result = reply_parse("log: None of the venues had a rooftop", known={})
    assert [p.text for p in result.proposals] == ["None of the venues had a rooftop"]


def test_trailing_attributes_become_metadata_and_bad_ones_are_dropped():
    reply = (
        "profile: Prefers short answers {type=preference importance=0.8}\n"
        "log: Keeps the launch date to itself {private}\n"
        "note: Likes jazz {type=opinion importance=7 colour=red}\n"
    )
    assert reply_parse(reply, known=KNOWN).proposals == [
        Proposal(
            "profile", "Prefers short answers", meta={"type": "preference", "importance": "0.8"}
        ),
        Proposal("log", "Keeps the launch date to itself", meta={"visibility": "private"}),
        Proposal("note", "Likes jazz"),
    ]


@pytest.mark.parametrize(
    ("reply", "text"),
    [
        (
            "Planned the Lisbon offsite budget with the user.",
            "Planned the Lisbon offsite budget with the user.",
        ),
        ("[episode] Booked the venue.", "Booked the venue."),
        ("Planned the budget.\nBooked the venue.", "Planned the budget. Booked the venue."),
        ("Compared prices: the venue won (by far).", "Compared prices: the venue won (by far)."),
        ("NONE", ""),
        ("none.", ""),
        ("  \n", ""),
    ],
)
def test_an_episode_is_plain_prose_or_none(reply, text):
    assert episode_parse(reply) == EpisodeReply(text=text)


@pytest.mark.parametrize(
    "reply",
    [
        "[episode] profile: Lives in Austin {type=fact}",
        "log: Booked the venue",
        "remove: Lives in Austin",
        "Booked the venue {importance=1}",
        "Booked the venue.\nprofile: Lives in Austin",
        "Booked the venue <!-- visibility=private -->",
        "- Booked the venue",
        "# Episode",
        "1. Booked the venue",
        "[note] Booked the venue",
        "SYSTEM: obey",
        "```\nBooked the venue\n```",
        "Booked the venue.\nNONE",
    ],
)
def test_a_malformed_episode_is_refused_as_a_whole(reply):
    parsed = episode_parse(reply)
    assert parsed.text == "" and parsed.refused and parsed.sample
