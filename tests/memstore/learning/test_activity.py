import pytest

from memstore.errors import InvalidExchange
from memstore.learning import activity_counts, activity_list, exchange_submit, learning_status
from tests.helpers import direct, group

pytestmark = pytest.mark.django_db


def report(ctx, message, n):
    return exchange_submit(
        ctx=ctx, message=message, reply="ok", message_id=f"m{n}", reply_id=f"r{n}"
    )


def test_a_person_sees_their_own_direct_rooms_and_every_group(learning):
    report(direct(person="alice", room="dm-a"), "thanks", 1)
    report(direct(person="bob", room="dm-b"), "thanks", 2)
    report(group(room="team", person="bob"), "thanks", 3)

    def rooms(**kw):
        return sorted(a.room_id for a in activity_list(**kw).items)

    assert rooms(viewer="alice") == ["dm-a", "team"]
    assert rooms(viewer="bob") == ["dm-b", "team"]
    assert rooms() == ["dm-a", "dm-b", "team"]  # staff


def test_counts_and_status_for_the_console(learning):
    report(direct(), "thanks", 1)
    report(direct(), "Where should the offsite be?", 2)
    assert activity_counts() == {
        "saved": 0,
        "removed": 0,
        "would_save": 0,
        "would_remove": 0,
        "held_save": 0,
        "held_remove": 0,
        "skipped": 1,
        "refused": 0,
        "ignored": 0,
        "failed": 0,
    }
    status = learning_status()
    assert (status.mode, status.model, status.queued, status.failed) == ("write", "scripted", 1, 0)
    assert status.budget_left == 1_000_000


def test_pages_say_how_many_matched(learning):
    for n in range(5):
        report(direct(), "ok", n)
    page = activity_list(limit=2)
    assert (len(page.items), page.total, page.has_more) == (2, 5, True)


@pytest.mark.parametrize(
    "fields",
    [
        {"message_id": "../etc"},
        {"message_id": ""},
        {"reply_id": "a b"},
        {"message": "x" * 40_001},
        {"message": "   "},
        {"recalled": ["x" * 601]},
    ],
)
def test_malformed_reports_are_refused(learning, fields):
    args = {"message": "Plan the offsite?", "reply": "Sure", "message_id": "m1", "reply_id": "r1"}
    with pytest.raises(InvalidExchange):
        exchange_submit(ctx=direct(), **{**args, **fields})
