"""Room tickets as the parser sees them: any text at all is either the exact ticket for this
call or refused as `ticket_invalid` (401), never a crash (issue 28: `v1.².…` raised ValueError)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstore.errors import TicketRefused
from memstore.rooms.tickets import room_ticket, ticket_check

KEY = "platform-shared-secret-for-tests"
CALL = {"bot": "a", "room_id": "dm-7", "kind": "direct", "person": "alice", "projects": ["x"]}


@pytest.fixture(autouse=True)
def keyed(settings):
    settings.ROOM_TICKET_KEY = KEY


def check(ticket: str) -> None:
    ticket_check(ticket=ticket, **CALL)


@pytest.mark.parametrize(
    "ticket",
    ["v1.².…", "v1.²³.abc", "v1.١٢٣." + "a" * 64, "v1.123." + "é" * 64, "v1.1." + "g" * 64]
    + ["v1." + "9" * 400 + "." + "a" * 64, "v2.123." + "a" * 64, "v1.123.." + "a" * 63],
)
def test_malformed_tickets_are_refused_as_invalid(ticket):
    with pytest.raises(TicketRefused) as refused:
        check(ticket)
    assert (refused.value.code, refused.value.status) == ("ticket_invalid", 401)


@given(st.text(max_size=120))
def test_any_text_is_refused_cleanly(ticket):
    with pytest.raises(TicketRefused):
        check(ticket)


@given(st.from_regex(r"v1\.[0-9]{1,14}\.[0-9a-fA-F]{60,68}", fullmatch=True))
def test_ticket_shaped_text_is_refused_cleanly(ticket):
    with pytest.raises(TicketRefused):
        check(ticket)


def test_the_platforms_ticket_passes():
    check(room_ticket(key=KEY, **{**CALL, "projects": ["x"]}))
