import pytest

from memstore.learning.known import KnownFacts
from memstore.learning.parse import reply_parse
from memstore.learning.plan import content_refusal, plan_build, secret_values


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("remember that the admin password is hunter2", {"hunter2"}),
        ("Wifi password: 'correct-horse'", {"correct-horse"}),
        ("my API key = abc123def456", {"abc123def456"}),
        ("the token is the same as before", set()),
        ("I moved to Lisbon", set()),
    ],
)
def test_secret_values_are_what_a_conversation_presents_as_secrets(text, values):
    assert secret_values(text) == values


def test_content_rules_apply_in_every_scope():
    assert content_refusal("Password is hunter2", excluded_topics=[], secrets=[])[0] == "secret"
    assert content_refusal("Logs in with hunter2", excluded_topics=[], secrets=["hunter2"])[0] == (
        "secret"
    )
    assert content_refusal("Got a raise in bonus", excluded_topics=["bonus"], secrets=[])[0] == (
        "topic"
    )
    assert content_refusal("Lives in Lisbon", excluded_topics=["bonus"], secrets=[]) is None


@pytest.mark.parametrize(
    ("new", "repeats"),
    [
        ("prefers dark mode.", True),
        ("Prefers  DARK mode", True),
        ("Prefers dark mode in editors", False),  # adds something
        ("Prefers light mode", False),
        ("Wants weekly reports to lead with blockers, then decisions", False),  # reordered meaning
        ("Wants weekly reports to lead with decisions then blockers", True),
        ("The flight to Lisbon is on May 4", False),  # another number, another fact
        ("The flight to Lisbon is on May 3.", True),
        ("The flight to Lisbon is not on May 3", False),
    ],
)
def test_near_duplicates_of_known_facts(new, repeats):
    known = KnownFacts()
    known.add(
        [
            "Prefers dark mode",
            "Wants weekly reports to lead with decisions, then blockers",
            "The flight to Lisbon is on May 3",
        ]
    )
    assert (known.match(new) is not None) is repeats


def test_a_plan_names_every_decision():
    known = KnownFacts()
    known.add(["Lives in Austin"])
    parsed = reply_parse(
        "profile: Lives in Austin\nlog: Has a <!-- comment -->\nprofile: Likes tea\nhello",
        known={},
    )
    assert plan_build(parsed, known=known, ours={}) == [
        {
            "op": "known",
            "line": "profile",
            "text": "Lives in Austin",
            "detail": "Already known: Lives in Austin",
        },
        {
            "op": "refuse",
            "line": "log",
            "text": "Has a <!-- comment -->",
            "reason": "invalid",
            "detail": "Fact text must not contain '<!--' or '-->' (reserved for metadata).",
        },
        {"op": "save", "tier": "profile", "text": "Likes tea"},
        {"op": "ignored", "count": 1, "sample": ["hello"]},
    ]
